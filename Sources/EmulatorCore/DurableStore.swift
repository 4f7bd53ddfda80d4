import Foundation

/// Where an emulator keeps its state across restarts (`--data-dir`): named spaces of entries (a key and bytes),
/// written in atomic batches that survive the process being killed once `write` returns. Emulators write what
/// each acknowledged change leaves behind, under their own lock and before they answer, and read their spaces
/// back when they start. The suite opens the one store of a data folder and hands it to every emulator.
public protocol DurableStore: AnyObject, Sendable {
    /// Applies `changes` in one transaction, in order: all of them or none. When it returns they are on disk
    /// (a crash of the process cannot lose them).
    func write(_ changes: some Sequence<DurableChange>) throws(DurableStoreError)
    /// Calls `body` with every entry of `space` in key order (byte order of the keys' UTF-8): the key's UTF-8 and
    /// the value's bytes, both valid only during the call.
    func scanBytes(_ space: String, _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void) throws
    /// The spaces that hold entries and whose names start with `prefix`, sorted.
    func spaces(prefix: String) throws(DurableStoreError) -> [String]
    /// Where the emulators keep what is better kept as files (Storage's object bytes), one subfolder each.
    var filesFolder: String { get }
}

extension DurableStore {
    /// Calls `body` with every entry of `space` in key order: the key, and the value's bytes, valid only during
    /// the call.
    public func scan(_ space: String, _ body: (_ key: String, _ value: UnsafeRawBufferPointer) throws -> Void) throws {
        try scanBytes(space) { key, value in try body(String(decoding: key, as: UTF8.self), value) }
    }
}

/// One change to a `DurableStore`.
public enum DurableChange: Sendable {
    /// Sets the entry `key` of `space` to `value`.
    case put(space: String, key: String, value: [UInt8])
    /// Removes the entry `key` of `space` (nothing if it is absent).
    case delete(space: String, key: String)
    /// Removes every entry of `space`.
    case deleteSpace(String)
}

/// A data folder that cannot be read or written.
public struct DurableStoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, naming the folder or file.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// Names of spaces and keys in a `DurableStore` built from ids clients chose (projects, tenants, buckets, objects).
public enum DurableName {
    /// `text` as one segment of a name: every character but ASCII letters, digits and a few marks is
    /// percent-encoded (`/` and `%` among them), so a name is ASCII, its segments split apart exactly at `/`,
    /// and any text reads back.
    public static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// The texts of the segments of `name` (the part of a name after its fixed prefix), split at `/`.
    public static func segments(of name: Substring) -> [String] {
        name.split(separator: "/", omittingEmptySubsequences: false).map { $0.percentDecoded ?? String($0) }
    }

    private static let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/%"))
}
