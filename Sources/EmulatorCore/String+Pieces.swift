extension String {
    /// Calls `body` with the UTF-8 bytes of each piece between `separator` bytes, in order, empty pieces
    /// included (`"a//b"` has three). A loop on the bytes: splitting a `String` by characters, or the
    /// generic `split` of its `UTF8View`, costs several times more, and request paths, queries and resource
    /// names are split on every call. `separator` must be ASCII, so every piece is whole UTF-8.
    public func forEachPiece(
        separatedBy separator: UInt8, _ body: (Slice<UnsafeBufferPointer<UInt8>>) throws -> Void
    ) rethrows {
        var text = self
        try text.withUTF8 { try $0[...].forEachPiece(separatedBy: separator, body) }
    }

    /// The pieces between `separator` bytes (ASCII), empty ones included.
    public func pieces(separatedBy separator: UInt8) -> [String] {
        var pieces: [String] = []
        forEachPiece(separatedBy: separator) { pieces.append(String(utf8Bytes: $0)) }
        return pieces
    }

    /// The text of whole UTF-8 `bytes`.
    public init(utf8Bytes bytes: Slice<UnsafeBufferPointer<UInt8>>) {
        self.init(decoding: UnsafeBufferPointer(rebasing: bytes), as: UTF8.self)
    }
}

extension Slice<UnsafeBufferPointer<UInt8>> {
    /// Calls `body` with each piece of these bytes between `separator` bytes, in order, empty pieces
    /// included (`String.forEachPiece` on a string's bytes).
    public func forEachPiece(
        separatedBy separator: UInt8, _ body: (Slice<UnsafeBufferPointer<UInt8>>) throws -> Void
    ) rethrows {
        var start = startIndex
        while true {
            let end = self[start...].firstIndex(of: separator) ?? endIndex
            try body(self[start..<end])
            guard end < endIndex else { return }
            start = end + 1
        }
    }
}

extension Slice<UnsafeBufferPointer<UInt8>> {
    /// Whether these are exactly `text`'s bytes.
    public func equals(_ text: StaticString) -> Bool {
        text.withUTF8Buffer { equals($0) }
    }

    /// Whether these are exactly the bytes of `other`. A pointer loop: the collection algorithms on slices
    /// cost ~30 instructions a byte.
    public func equals(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard count == other.count else { return false }
        var offset = 0
        while offset < other.count {
            guard base[startIndex + offset] == other[offset] else { return false }
            offset += 1
        }
        return true
    }

    /// Whether the bytes spell `lowercase` (lowercase ASCII), ignoring ASCII case: no other character
    /// lowercases to an ASCII letter.
    public func equalsIgnoringASCIICase(_ lowercase: StaticString) -> Bool {
        guard count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { wanted in
            var offset = 0
            while offset < wanted.count {
                let byte = base[startIndex + offset]
                let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                guard folded == wanted[offset] else { return false }
                offset += 1
            }
            return true
        }
    }
}
