import CCRC32C
import Foundation

/// CRC-32C (Castagnoli), the checksum Cloud Storage keeps for every object, computed incrementally over
/// the bytes as they stream in (with the CPU's CRC32 instruction where there is one).
struct CRC32C: Sendable {
    /// The checksum of the bytes so far.
    private(set) var value: UInt32 = 0

    /// A checksum already computed.
    init(value: UInt32 = 0) {
        self.value = value
    }

    /// Adds `bytes`.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        value = hearth_crc32c_extend(value, base, bytes.count)
    }

    /// The checksum as Cloud Storage writes it in JSON and `x-goog-hash`: base64 of its 4 bytes, big-endian.
    var base64: String {
        withUnsafeBytes(of: value.bigEndian) { Data($0).base64EncodedString() }
    }
}
