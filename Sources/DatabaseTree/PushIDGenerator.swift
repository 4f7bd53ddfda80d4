import Synchronization

/// Push ids, as `POST /path.json` names the new child: 20 characters of the alphabet
/// `-0-9A-Z_a-z` (in ASCII order, so ids sort as text): 8 for the time in milliseconds (base 64, most
/// significant first) and 12 random. Ids made in the same millisecond reuse the previous random part plus
/// one, so ids from one generator always sort in the order they were made; a clock that goes back is held at
/// the last time seen (emulator choice: production ids only promise this within one millisecond).
package final class PushIDGenerator: Sendable {
    private static let alphabet = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".utf8)

    private struct State {
        var lastTime: Int64 = -1
        var random = [UInt8](repeating: 0, count: 12)
    }

    private let state = Mutex(State())

    /// A generator with no ids made yet.
    package init() {}

    /// The next id, `now` being the time in epoch milliseconds.
    package func next(now: Int64) -> String {
        state.withLock { state in
            var time = max(now, state.lastTime, 0)
            if time == state.lastTime && !Self.increment(&state.random) {
                time += 1  // 2^72 ids in one millisecond: move on to the next one
            }
            if time != state.lastTime {
                for index in state.random.indices { state.random[index] = UInt8.random(in: 0..<64) }
                state.lastTime = time
            }
            var bytes = [UInt8](repeating: 0, count: 20)
            for index in stride(from: 7, through: 0, by: -1) {
                bytes[index] = Self.alphabet[Int(time % 64)]
                time /= 64
            }
            for (index, digit) in state.random.enumerated() { bytes[8 + index] = Self.alphabet[Int(digit)] }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Adds one to the base-64 digits; `false` when they were all at the maximum.
    private static func increment(_ digits: inout [UInt8]) -> Bool {
        for index in digits.indices.reversed() {
            if digits[index] < 63 {
                digits[index] += 1
                return true
            }
            digits[index] = 0
        }
        return false
    }
}
