import Foundation

/// CRC-32C (Castagnoli), the checksum Cloud Storage keeps for every object, computed incrementally over
/// the bytes as they stream in (slicing by 8).
struct CRC32C: Sendable {
    /// The checksum of the bytes so far.
    private(set) var value: UInt32 = 0

    /// Adds `bytes`.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = ~value
        var index = 0
        let count = bytes.count
        let tables = Self.tables
        while count - index >= 8 {
            let low = crc ^ (UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16
                | UInt32(bytes[index + 3]) << 24)
            crc = tables[7 * 256 + Int(low & 0xFF)] ^ tables[6 * 256 + Int((low >> 8) & 0xFF)]
                ^ tables[5 * 256 + Int((low >> 16) & 0xFF)] ^ tables[4 * 256 + Int(low >> 24)]
                ^ tables[3 * 256 + Int(bytes[index + 4])] ^ tables[2 * 256 + Int(bytes[index + 5])]
                ^ tables[1 * 256 + Int(bytes[index + 6])] ^ tables[Int(bytes[index + 7])]
            index += 8
        }
        while index < count {
            crc = tables[Int((crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
            index += 1
        }
        value = ~crc
    }

    /// Adds `bytes`.
    mutating func update(_ bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        array.withUnsafeBytes { update($0) }
    }

    /// The checksum as Cloud Storage writes it in JSON and `x-goog-hash`: base64 of its 4 bytes, big-endian.
    var base64: String {
        withUnsafeBytes(of: value.bigEndian) { Data($0).base64EncodedString() }
    }

    /// Eight 256-entry tables of the reflected polynomial 0x82F63B78.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[byte] = crc
        }
        for byte in 0..<256 {
            for slice in 1..<8 {
                let previous = tables[(slice - 1) * 256 + byte]
                tables[slice * 256 + byte] = tables[Int(previous & 0xFF)] ^ (previous >> 8)
            }
        }
        return tables
    }()
}
