/// The wire protocol's own framing on top of WebSocket text frames, both ways: a message longer than
/// 16384 UTF-16 code units (the SDKs count JavaScript string length) goes out as a frame holding the number
/// of frames, then the frames; a received frame of at most 6 characters that parses as a number announces
/// that many frames to join.
struct WireFraming: Sendable {
    /// The longest frame the SDKs send, in UTF-16 code units.
    static let maximumFrameLength = 16_384

    private var expected = 0
    private var parts: [String] = []

    /// A reassembler waiting for a message.
    init() {}

    /// Takes one received frame; returns the message it completes, if any.
    mutating func receive(_ frame: String) -> String? {
        if expected == 0 {
            if frame.utf8.count <= 6, let count = Int(frame) {
                expected = max(count, 0)
                parts = []
                return nil
            }
            return frame
        }
        parts.append(frame)
        guard parts.count == expected else { return nil }
        expected = 0
        defer { parts = [] }
        return parts.joined()
    }

    /// The frames to send `message` in: the message itself when short enough, else the frame count and
    /// pieces of at most `maximumFrameLength` code units, never cut inside a Unicode scalar.
    static func frames(of message: String) -> [String] {
        guard message.utf16.count > maximumFrameLength else { return [message] }
        var frames: [String] = []
        var piece = String.UnicodeScalarView()
        var length = 0
        for scalar in message.unicodeScalars {
            let width = scalar.utf16.count
            if length + width > maximumFrameLength {
                frames.append(String(piece))
                piece = String.UnicodeScalarView()
                length = 0
            }
            piece.append(scalar)
            length += width
        }
        if !piece.isEmpty { frames.append(String(piece)) }
        return [String(frames.count)] + frames
    }
}
