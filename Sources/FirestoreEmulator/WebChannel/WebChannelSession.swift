/// One WebChannel session (Closure's BrowserChannel protocol, version 8: the web SDK opens one per `Listen`
/// or `Write` stream) as a value-type state machine, without I/O.
///
/// Client → server: forward-channel POSTs carry numbered maps (the stream's requests); a retried POST
/// repeats maps, which are delivered once. Server → client: numbered arrays (array 0 is the handshake's
/// `c` array), written by one back channel at a time and kept until the client acknowledges them (the
/// `AID` of its next request), so a back channel that breaks loses nothing: the next one starts again after
/// the acknowledged id.
struct WebChannelSession: Sendable {
    /// One array: its id and its text, `[id,payload]`.
    struct NumberedArray: Sendable, Equatable {
        /// The array id.
        var id: Int
        /// The array as JSON text.
        var text: String
    }

    /// The arrays not yet acknowledged, in id order.
    private(set) var outbox: [NumberedArray] = []
    private var nextArrayID = 1
    private var lastMapID = -1
    /// Maps that arrived ahead of one still missing, by id.
    private var early: [Int: String] = [:]
    /// The most maps that may wait for a missing one.
    static let waitingLimit = 10_000
    /// The highest array id any back channel has written.
    private(set) var writtenThrough = 0
    /// The bytes of the arrays no back channel has written yet.
    private(set) var unsentBytes = 0
    /// The current back channel's generation; `nil` when none is open.
    private(set) var backChannel: Int?
    private var generations = 0

    /// The id of the last array queued.
    var lastArrayID: Int { nextArrayID - 1 }

    /// The bytes of the arrays written or queued but not acknowledged (kept as arrays come and go: the back
    /// channel asks after every write).
    private(set) var unacknowledgedBytes = 0

    /// The data of the maps of a forward-channel request (map ids from `offset` up) that can be delivered
    /// now, in id order: those not delivered before, and none past a missing one. A page served over HTTP/2
    /// has Closure send up to ten forward requests at once, each with the next maps, and they can arrive out
    /// of order: maps ahead of a missing one wait for it (a retried request repeats maps; each is delivered
    /// once).
    ///
    /// `nil` once more than `waitingLimit` maps wait (Closure never has more than ten requests' worth in
    /// flight): the session is broken.
    mutating func receive(_ maps: [String], offset: Int) -> [String]? {
        for (index, data) in maps.enumerated() where offset + index > lastMapID { early[offset + index] = data }
        guard early.count <= Self.waitingLimit else { return nil }
        var fresh: [String] = []
        while let data = early.removeValue(forKey: lastMapID + 1) {
            fresh.append(data)
            lastMapID += 1
        }
        return fresh
    }

    /// Queues `payload` (a JSON array's text) as the next array; returns its id.
    @discardableResult
    mutating func queue(_ payload: String) -> Int {
        let id = nextArrayID
        nextArrayID += 1
        let array = NumberedArray(id: id, text: "[\(id),\(payload)]")
        outbox.append(array)
        unsentBytes += array.text.utf8.count
        unacknowledgedBytes += array.text.utf8.count
        return id
    }

    /// The client has received every array up to `arrayID`: they are dropped.
    mutating func acknowledge(through arrayID: Int) {
        guard let first = outbox.first, first.id <= arrayID else { return }
        let acknowledged = outbox.firstIndex { $0.id > arrayID } ?? outbox.count
        unacknowledgedBytes -= outbox[..<acknowledged].reduce(0) { $0 + $1.text.utf8.count }
        outbox.removeFirst(acknowledged)
    }

    /// Opens a back channel for a client that has every array up to `arrayID`; it replaces any other.
    /// Returns its generation.
    mutating func openBackChannel(acknowledging arrayID: Int) -> Int {
        acknowledge(through: arrayID)
        generations += 1
        backChannel = generations
        return generations
    }

    /// Back channel `generation`'s next arrays, those after `sentThrough`, marked written; `nil` once
    /// another back channel replaced it or it was closed.
    mutating func take(for generation: Int, after sentThrough: Int) -> [NumberedArray]? {
        guard backChannel == generation else { return nil }
        let start = outbox.firstIndex { $0.id > sentThrough } ?? outbox.count
        let arrays = Swift.Array(outbox[start...])
        for array in arrays where array.id > writtenThrough {
            unsentBytes -= array.text.utf8.count
            writtenThrough = array.id
        }
        return arrays
    }

    /// Closes back channel `generation`, unless another replaced it.
    mutating func closeBackChannel(_ generation: Int) {
        if backChannel == generation { backChannel = nil }
    }

    /// The forward channel's answer: `[back channel, last array id, bytes not yet on a back channel]`, the
    /// first 1 while a back channel is open and 0 while none is (the client then opens one if its own is
    /// not on its way), as the official emulator and Closure's WebChannel server answer.
    var forwardResponse: String { "[\(backChannel == nil ? 0 : 1),\(lastArrayID),\(unsentBytes)]" }
}
