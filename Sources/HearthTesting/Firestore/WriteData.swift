import FirestoreEmulator
import FirestoreWire
import SwiftProtobuf

/// The data of a `setData` or `updateData` as the SDKs send it: the fields, the field mask of a merge or an
/// update (a masked path without a value deletes the field), and a field transform for each sentinel.
struct WriteData {
    private enum Mode {
        /// Replaces the document: no mask, no `.delete`.
        case set
        /// Merges: the mask holds every leaf written and every `.delete`.
        case merge
        /// Updates field paths: the mask holds each key; `.delete` only as a key's whole value.
        case update
    }

    private let root: String
    private var fields: [String: Google_Firestore_V1_Value] = [:]
    private var mask: [FieldPath]?
    private var transforms: [Google_Firestore_V1_DocumentTransform.FieldTransform] = []

    /// `setData(data)`, or `setData(data, merge: true)`. `root` is the documents root, for references.
    init(setting data: [String: FirestoreValue], merge: Bool, root: String) throws(ClientError) {
        self.root = root
        let mode: Mode = merge ? .merge : .set
        if merge { mask = [] }
        for (name, value) in data {
            if let converted = try convert(value, at: FieldPath(segments: [name]), mode: mode) { fields[name] = converted }
        }
    }

    /// `updateData(fields)`: each key is a dot-separated field path.
    init(updating data: [String: FirestoreValue], root: String) throws(ClientError) {
        self.root = root
        var mask: [FieldPath] = []
        for (key, value) in data {
            let path = FieldPath(dotted: key)
            if case .delete = value {
                mask.append(path)
            } else if let converted = try convert(value, at: path, mode: .update) {
                mask.append(path)
                Self.insert(converted, at: path.segments[...], into: &fields)
            }
        }
        self.mask = mask
    }

    /// The write of this data to the document named `name`, with an existence precondition if given.
    func write(to name: String, exists: Bool? = nil) -> Google_Firestore_V1_Write {
        var write = Google_Firestore_V1_Write()
        write.update.name = name
        write.update.fields = fields
        if let mask { write.updateMask.fieldPaths = mask.map(\.description).sorted() }
        write.updateTransforms = transforms.sorted { $0.fieldPath < $1.fieldPath }
        if let exists { write.currentDocument.exists = exists }
        return write
    }

    /// The wire value of `value` at `path`, or nil for a sentinel (recorded as a transform or a masked
    /// path instead).
    private mutating func convert(_ value: FirestoreValue, at path: FieldPath, mode: Mode) throws(ClientError)
        -> Google_Firestore_V1_Value?
    {
        var transform = Google_Firestore_V1_DocumentTransform.FieldTransform()
        transform.fieldPath = path.description
        switch value {
        case .delete:
            guard mode == .merge else {
                throw ClientError(
                    .invalidArgument,
                    message: "FirestoreValue.delete can only be used in updateData (as a key's value) and in "
                        + "setData with merge (field \(path)).")
            }
            mask?.append(path)
            return nil
        case .serverTimestamp:
            transform.setToServerValue = .requestTime
        case .increment(let operand):
            transform.increment = try operand.proto(root: root)
        case .arrayUnion(let elements):
            transform.appendMissingElements = try FirestoreValue.array(elements, root: root)
        case .arrayRemove(let elements):
            transform.removeAllFromArray = try FirestoreValue.array(elements, root: root)
        case .map(let children) where !children.isEmpty:
            var map = Google_Firestore_V1_MapValue()
            for (name, child) in children {
                if let converted = try convert(child, at: path.appending(name), mode: mode) { map.fields[name] = converted }
            }
            return .with { $0.mapValue = map }
        default:
            if mode == .merge { mask?.append(path) }
            return try value.proto(root: root)
        }
        transforms.append(transform)
        return nil
    }

    /// Puts `value` at `path` in `fields`, making the maps on the way.
    private static func insert(
        _ value: Google_Firestore_V1_Value, at path: ArraySlice<String>, into fields: inout [String: Google_Firestore_V1_Value]
    ) {
        guard let name = path.first else { return }
        guard path.count > 1 else {
            fields[name] = value
            return
        }
        var map = fields[name]?.mapValue.fields ?? [:]
        insert(value, at: path.dropFirst(), into: &map)
        fields[name] = .with { $0.mapValue.fields = map }
    }
}
