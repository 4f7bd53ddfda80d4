import CCRC32C
import Foundation

/// CRC-32C (Castagnoli), computed incrementally with the CPU's CRC32 instruction where there is one: the
/// checksum Cloud Storage keeps for every object and the one each record of a Firestore export carries.
public struct CRC32C: Sendable {
    /// The checksum of the bytes so far.
    public private(set) var value: UInt32 = 0

    /// A checksum already computed.
    public init(value: UInt32 = 0) {
        self.value = value
    }

    /// Adds `bytes`.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        value = hearth_crc32c_extend(value, base, bytes.count)
    }

    /// The checksum as Cloud Storage writes it in JSON and `x-goog-hash`: base64 of its 4 bytes, big-endian.
    public var base64: String {
        withUnsafeBytes(of: value.bigEndian) { Data($0).base64EncodedString() }
    }
}
