/// The wire protocol's own framing on top of WebSocket text frames, for both ends (the emulator's endpoint
/// and HearthTesting's client): a frame holding only a small number announces that many frames to
/// concatenate; `0` alone is the client's keepalive; anything else is a whole message.
package struct FrameAssembler: Sendable {
    /// The largest message accepted, in UTF-8 bytes; larger ones fail the connection.
    package let limit: Int
    private var expected = 0
    private var parts: [String] = []
    private var size = 0

    /// An assembler refusing messages over `limit` bytes.
    package init(limit: Int) {
        self.limit = limit
    }

    /// What a frame means.
    package enum Outcome: Equatable {
        /// A whole message.
        case message(String)
        /// Part of a message, or a keepalive: nothing to do yet.
        case pending
        /// The message is over the limit.
        case tooLarge
    }

    /// Takes one frame.
    package mutating func receive(_ frame: String) -> Outcome {
        if expected == 0 {
            if frame.utf8.count <= 6, let count = Int(frame) {
                // `0` is the keepalive; a count announces that many frames.
                if count > 0 {
                    expected = count
                    parts = []
                    size = 0
                }
                return .pending
            }
            return frame.utf8.count > limit ? .tooLarge : .message(frame)
        }
        parts.append(frame)
        size += frame.utf8.count
        if size > limit { return .tooLarge }
        guard parts.count == expected else { return .pending }
        expected = 0
        defer { parts = [] }
        return .message(parts.joined())
    }

    /// Splits an outgoing message into frames of at most `maximum` UTF-16 code units (the SDKs count
    /// JavaScript string length), never inside a Unicode scalar; more than one frame is preceded by their
    /// count.
    package static func frames(of message: String, maximum: Int = 16_384) -> [String] {
        if message.utf16.count <= maximum { return [message] }
        var frames: [String] = []
        var current = String.UnicodeScalarView()
        var length = 0
        for scalar in message.unicodeScalars {
            let width = scalar.utf16.count
            if length + width > maximum {
                frames.append(String(current))
                current = String.UnicodeScalarView()
                length = 0
            }
            current.append(scalar)
            length += width
        }
        if !current.isEmpty { frames.append(String(current)) }
        return [String(frames.count)] + frames
    }
}
