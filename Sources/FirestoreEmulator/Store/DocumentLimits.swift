import EmulatorCore

/// Production's limits on a stored document, which the official emulator does not enforce: its size, the
/// size of each string and bytes value, the nesting depth of maps and arrays, arrays directly inside arrays,
/// and the field names; and the shape of vector values, which it does (`FindNearest.components`). Errors carry production's messages where they are known (see each constant).
///
/// One pass over the document checks everything and adds up its storage size, following
/// https://firebase.google.com/docs/firestore/storage-size.
enum DocumentLimits {
    /// The largest document: 1 MiB. Over it: `Document '…' cannot be written because its size (1,048,577
    /// bytes) exceeds the maximum allowed size of 1,048,576 bytes.`
    static let maximumDocumentSize = 1_048_576
    /// The longest string or bytes value, 1 MiB - 89 bytes: `The value of property "…" is longer than
    /// 1048487 bytes.`
    static let maximumValueSize = 1_048_487
    /// The deepest a value may sit: a top-level field's value is at depth 0, each map or array adds one.
    /// Deeper: `Property <top-level field> contains an invalid nested entity.`
    static let maximumDepth = 20
    /// The longest field name, in UTF-8 bytes.
    static let maximumFieldNameSize = 1500

    /// Checks `document` against every limit; throws INVALID_ARGUMENT naming the first violation.
    static func validate(_ document: Document, in database: DatabaseName) throws(FirestoreError) {
        let size = try storageSize(of: document)
        guard size <= maximumDocumentSize else {
            throw FirestoreError(
                .invalidArgument,
                "Document '\(document.path.name(in: database))' cannot be written because its size (\(grouped(size)) bytes) exceeds the maximum allowed size of \(grouped(maximumDocumentSize)) bytes."
            )
        }
    }

    /// The document's storage size: its name's size, plus each field name's and value's, plus 32. Checks
    /// every limit but the document size on the way.
    static func storageSize(of document: Document) throws(FirestoreError) -> Int {
        var walk = Walk()
        var size = nameSize(of: document.path) + 32
        for (name, value) in document.fields {
            size += try walk.fieldSize(name: name, value: value, depth: 0, inVector: false)
        }
        return size
    }

    /// A document name's size: each segment's UTF-8 bytes plus one, plus 16.
    static func nameSize(of path: DocumentPath) -> Int {
        path.segments.reduce(16) { $0 + $1.utf8.count + 1 }
    }

    /// A reference's size: the name size of the document it names (the part after `…/documents/`).
    static func referenceSize(_ name: String) -> Int {
        var slashes = 0
        var tail = 0
        for byte in name.utf8 {
            if slashes == 5 {
                tail += 1
            } else if byte == UInt8(ascii: "/") {
                slashes += 1
            }
        }
        // k segments and k - 1 slashes: the bytes of the segments plus one each is `tail + 1`.
        return tail == 0 ? 16 : tail + 1 + 16
    }

    /// Whether a field name is reserved (`__.*__`).
    static func isReserved(_ name: String) -> Bool {
        name.utf8.count >= 4 && name.hasPrefix("__") && name.hasSuffix("__")
    }

    /// `1048576` as `1,048,576`, as production prints sizes.
    static func grouped(_ number: Int) -> String {
        var digits = Array(String(number))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(",", at: index)
            index -= 3
        }
        return String(digits)
    }

    /// One walk over a document's values, keeping the field path for messages.
    private struct Walk {
        /// The map keys from the top-level field down to the current value.
        var path: [String] = []

        /// A map entry's size (its name's and its value's), checking the name and the value.
        mutating func fieldSize(name: String, value: FirestoreValue, depth: Int, inVector: Bool) throws(FirestoreError) -> Int {
            try check(name: name, inVector: inVector)
            path.append(name)
            defer { path.removeLast() }
            return name.utf8.count + 1 + (try valueSize(value, depth: depth))
        }

        /// A value's size; `depth` is where the value sits (0 for a top-level field's value).
        mutating func valueSize(_ value: FirestoreValue, depth: Int) throws(FirestoreError) -> Int {
            guard depth <= DocumentLimits.maximumDepth else { throw invalidNestedEntity(path[0]) }
            switch value {
            case .null, .boolean: return 1
            case .integer, .double, .timestamp: return 8
            case .geoPoint: return 16
            case .string(let text):
                let count = text.utf8.count
                guard count <= DocumentLimits.maximumValueSize else { throw tooLong() }
                return count + 1
            case .bytes(let bytes):
                guard bytes.count <= DocumentLimits.maximumValueSize else { throw tooLong() }
                return bytes.count
            case .reference(let name): return DocumentLimits.referenceSize(name)
            case .array(let values):
                var size = 0
                for element in values {
                    // Production names no field here: the message always says "array".
                    if case .array = element { throw invalidNestedEntity("array") }
                    if case .map(let fields) = element, FirestoreValue.isVector(fields) {
                        throw FirestoreError(.invalidArgument, "Cannot convert a vector value in an array value.")
                    }
                    size += try valueSize(element, depth: depth + 1)
                }
                return size
            case .map(let fields):
                let isVector = FirestoreValue.isVector(fields)
                if isVector { _ = try FindNearest.components(of: fields, allowingNaN: false) }
                var size = 0
                for (name, child) in fields {
                    size += try fieldSize(name: name, value: child, depth: depth + 1, inVector: isVector)
                }
                return size
            }
        }

        /// A field name must be non-empty, not reserved (but a vector's `__type__`) and at most 1,500 bytes.
        /// These messages are the emulator's own; production's were not found.
        private func check(name: String, inVector: Bool) throws(FirestoreError) {
            if name.isEmpty {
                throw FirestoreError(.invalidArgument, "Field name \"\" in \(context) is invalid because it is empty.")
            }
            if DocumentLimits.isReserved(name), !(inVector && name == "__type__") {
                throw FirestoreError(.invalidArgument, "Field name \"\(name)\" in \(context) is invalid because it is reserved.")
            }
            if name.utf8.count > DocumentLimits.maximumFieldNameSize {
                throw FirestoreError(
                    .invalidArgument,
                    "Field name \"\(name.prefix(20))...\" in \(context) is invalid because it is longer than \(DocumentLimits.maximumFieldNameSize) bytes."
                )
            }
        }

        /// Where a field name sits, for messages: `the document` or `field a.b`.
        private var context: String {
            path.isEmpty ? "the document" : "field \(FieldPath(segments: path).description)"
        }

        private func tooLong() -> FirestoreError {
            FirestoreError(
                .invalidArgument,
                "The value of property \"\(FieldPath(segments: path).description)\" is longer than \(DocumentLimits.maximumValueSize) bytes."
            )
        }

        private func invalidNestedEntity(_ property: String) -> FirestoreError {
            FirestoreError(.invalidArgument, "Property \(property) contains an invalid nested entity.")
        }
    }
}
