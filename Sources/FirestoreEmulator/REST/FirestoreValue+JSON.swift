import EmulatorCore
import Foundation

/// proto3 JSON for `google.firestore.v1.Value`, as REST clients send and expect it.
extension FirestoreValue {
    /// Decodes a `Value` object; `field` names it in production's error messages.
    init(json: JSONValue, field: @autoclosure () -> String = "value") throws(FirestoreError) {
        guard let object = json.objectValue, object.count == 1, let (kind, payload) = object.first else {
            throw FirestoreError(.invalidArgument, "Invalid value at '\(field())': a Value must set exactly one of its fields.")
        }
        switch kind {
        case "nullValue":
            guard payload == .null || payload == "NULL_VALUE" || payload == 0 else { throw Self.invalid(field(), kind, payload) }
            self = .null
        case "booleanValue":
            guard let value = payload.boolValue else { throw Self.invalid(field(), kind, payload) }
            self = .boolean(value)
        case "integerValue":
            if let value = payload.intValue, payload.doubleValue.map({ $0.rounded() == $0 }) ?? false {
                self = .integer(value)
            } else if let text = payload.stringValue, let value = Int64(text) {
                self = .integer(value)
            } else {
                throw Self.invalid(field(), kind, payload)
            }
        case "doubleValue":
            switch payload {
            case .int(let value): self = .double(Double(value))
            case .double(let value): self = .double(value)
            case .string("NaN"): self = .double(.nan)
            case .string("Infinity"): self = .double(.infinity)
            case .string("-Infinity"): self = .double(-.infinity)
            case .string(let text) where Double(text) != nil: self = .double(Double(text)!)
            default: throw Self.invalid(field(), kind, payload)
            }
        case "timestampValue":
            guard let text = payload.stringValue, let (seconds, nanos) = Self.parseTimestamp(text) else {
                throw Self.invalid(field(), kind, payload)
            }
            // Stored at microseconds, extra digits rounded down, as production stores them.
            self = .timestamp(seconds: seconds, nanos: nanos - nanos % 1000)
        case "stringValue":
            guard let value = payload.stringValue else { throw Self.invalid(field(), kind, payload) }
            self = .string(value)
        case "bytesValue":
            guard let text = payload.stringValue, let data = Data(base64Encoded: text) ?? Data(base64URLEncoded: text)
            else { throw Self.invalid(field(), kind, payload) }
            self = .bytes(Array(data))
        case "referenceValue":
            guard let value = payload.stringValue else { throw Self.invalid(field(), kind, payload) }
            self = .reference(value)
        case "geoPointValue":
            let latitude = payload["latitude"]?.doubleValue ?? (payload["latitude"] == nil ? 0 : nil)
            let longitude = payload["longitude"]?.doubleValue ?? (payload["longitude"] == nil ? 0 : nil)
            guard payload.objectValue != nil, let latitude, let longitude else { throw Self.invalid(field(), kind, payload) }
            self = .geoPoint(latitude: latitude, longitude: longitude)
        case "arrayValue":
            guard let object = payload.objectValue else { throw Self.invalid(field(), kind, payload) }
            var values: [FirestoreValue] = []
            for (index, item) in (object["values"]?.arrayValue ?? []).enumerated() {
                values.append(try FirestoreValue(json: item, field: "\(field()).array_value.values[\(index)]"))
            }
            self = .array(values)
        case "mapValue":
            guard let object = payload.objectValue else { throw Self.invalid(field(), kind, payload) }
            self = .map(try Self.fields(object["fields"] ?? [:], field: "\(field()).map_value.fields"))
        default:
            throw FirestoreError(.invalidArgument, "Invalid JSON payload received. Unknown name \"\(kind)\" at '\(field())': Cannot find field.")
        }
    }

    /// Decodes a `fields` map (`{name: Value}`).
    static func fields(_ json: JSONValue, field: @autoclosure () -> String = "fields") throws(FirestoreError)
        -> [String: FirestoreValue]
    {
        guard let object = json.objectValue else {
            throw FirestoreError(.invalidArgument, "Invalid value at '\(field())': expected a map of field names to values.")
        }
        var result: [String: FirestoreValue] = [:]
        result.reserveCapacity(object.count)
        for (name, value) in object {
            // Production names a map entry by its position: `fields[0].value`.
            result[name] = try FirestoreValue(
                json: value, field: "\(field())[\(object.keys.sorted().firstIndex(of: name) ?? 0)].value")
        }
        return result
    }

    /// The proto3 JSON form.
    var json: JSONValue {
        switch self {
        case .null: return ["nullValue": .null]
        case .boolean(let value): return ["booleanValue": .bool(value)]
        case .integer(let value): return ["integerValue": .string(String(value))]
        case .double(let value):
            if value.isNaN { return ["doubleValue": "NaN"] }
            if value.isInfinite { return ["doubleValue": value > 0 ? "Infinity" : "-Infinity"] }
            return ["doubleValue": .double(value)]
        case .timestamp(let seconds, let nanos):
            return ["timestampValue": .string(Self.formatTimestamp(seconds: seconds, nanos: nanos))]
        case .string(let value): return ["stringValue": .string(value)]
        case .bytes(let value): return ["bytesValue": .string(Data(value).base64EncodedString())]
        case .reference(let value): return ["referenceValue": .string(value)]
        case .geoPoint(let latitude, let longitude):
            // proto3 JSON leaves out members at their default (0, -0.0 too), as the official emulator renders them.
            var point: [String: JSONValue] = [:]
            if latitude != 0 { point["latitude"] = .double(latitude) }
            if longitude != 0 { point["longitude"] = .double(longitude) }
            return ["geoPointValue": .object(point)]
        case .array(let values): return ["arrayValue": values.isEmpty ? [:] : ["values": .array(values.map(\.json))]]
        case .map(let fields):
            return ["mapValue": fields.isEmpty ? [:] : ["fields": .object(fields.mapValues(\.json))]]
        }
    }

    /// Writes `json`'s text without building it: keys in the order `JSONValue` sorts them.
    func writeJSON(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.raw(#"{"nullValue":null}"#)
        case .boolean(let value): writer.raw(value ? #"{"booleanValue":true}"# : #"{"booleanValue":false}"#)
        case .integer(let value):
            writer.raw(#"{"integerValue":""#)
            writer.int(value)
            writer.raw(#""}"#)
        case .double(let value):
            writer.raw(#"{"doubleValue":"#)
            if value.isNaN {
                writer.raw(#""NaN""#)
            } else if value.isInfinite {
                writer.raw(value > 0 ? #""Infinity""# : #""-Infinity""#)
            } else {
                writer.double(value)
            }
            writer.raw("}")
        case .timestamp(let seconds, let nanos):
            writer.raw(#"{"timestampValue":"#)
            Self.writeTimestamp(seconds: seconds, nanos: nanos, to: &writer)
            writer.raw("}")
        case .string(let value):
            writer.raw(#"{"stringValue":"#)
            writer.string(value)
            writer.raw("}")
        case .bytes(let value):
            writer.raw(#"{"bytesValue":"#)
            writer.string(Data(value).base64EncodedString())
            writer.raw("}")
        case .reference(let value):
            writer.raw(#"{"referenceValue":"#)
            writer.string(value)
            writer.raw("}")
        case .geoPoint(let latitude, let longitude):
            writer.raw(#"{"geoPointValue":{"#)
            if latitude != 0 {
                writer.raw(#""latitude":"#)
                writer.double(latitude)
            }
            if longitude != 0 {
                if latitude != 0 { writer.raw(",") }
                writer.raw(#""longitude":"#)
                writer.double(longitude)
            }
            writer.raw("}}")
        case .array(let values):
            guard !values.isEmpty else { return writer.raw(#"{"arrayValue":{}}"#) }
            writer.raw(#"{"arrayValue":{"values":"#)
            writer.array(values) { $0.writeJSON(to: &$1) }
            writer.raw("}}")
        case .map(let fields):
            guard !fields.isEmpty else { return writer.raw(#"{"mapValue":{}}"#) }
            writer.raw(#"{"mapValue":{"fields":"#)
            Self.writeJSON(fields, to: &writer)
            writer.raw("}}")
        }
    }

    /// Writes a `fields` map's text: `{"name":value,...}` in sorted key order.
    static func writeJSON(_ fields: [String: FirestoreValue], to writer: inout JSONWriter) {
        writer.object(fields) { $0.writeJSON(to: &$1) }
    }

    private static func invalid(_ field: String, _ kind: String, _ payload: JSONValue) -> FirestoreError {
        let type: String
        switch kind {
        case "nullValue": type = "type.googleapis.com/google.protobuf.NullValue"
        case "booleanValue": type = "TYPE_BOOL"
        case "integerValue": type = "TYPE_INT64"
        case "doubleValue": type = "TYPE_DOUBLE"
        case "timestampValue": type = "type.googleapis.com/google.protobuf.Timestamp"
        case "bytesValue": type = "TYPE_BYTES"
        case "geoPointValue": type = "type.googleapis.com/google.type.LatLng"
        case "arrayValue": type = "type.googleapis.com/google.firestore.v1.ArrayValue"
        case "mapValue": type = "type.googleapis.com/google.firestore.v1.MapValue"
        default: type = "TYPE_STRING"
        }
        return FirestoreError(
            .invalidArgument,
            "Invalid value at '\(field).\(ProtoName.snakeCase(kind))' (\(type)), \(payload.serialized())")
    }

    /// RFC 3339 with `Z` or an offset, in the proleptic Gregorian calendar that `google.protobuf.Timestamp` uses
    /// (Foundation's calendar turns Julian before 1582), read as leniently as the official emulator reads it
    /// (conformance/fixtures/official_value_answers.json): a day past the month's end, hour 24 and second 60
    /// carry over; digits past nanoseconds are dropped; a dot without digits is none; lowercase `t`/`z` are not
    /// taken.
    static func parseTimestamp(_ text: String) -> (Int64, Int32)? {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int64? {
            guard start + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[start..<start + count] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        func byte(_ index: Int, _ expected: Character...) -> Bool {
            index < bytes.count && expected.contains(Character(UnicodeScalar(bytes[index])))
        }
        guard let year = number(0, 4), byte(4, "-"), let month = number(5, 2), byte(7, "-"), let day = number(8, 2),
            byte(10, "T"), let hour = number(11, 2), byte(13, ":"), let minute = number(14, 2), byte(16, ":"),
            let second = number(17, 2), (1...12).contains(month), (1...31).contains(day), hour <= 24, minute < 60,
            second <= 60
        else { return nil }
        var index = 19
        var nanos: Int32 = 0
        if byte(index, ".") {
            var digits = 0
            index += 1
            while index < bytes.count, (48...57).contains(bytes[index]) {
                if digits < 9 { nanos = nanos * 10 + Int32(bytes[index] - 48) }
                digits += 1
                index += 1
            }
            for _ in min(digits, 9)..<9 { nanos *= 10 }
        }
        var offset: Int64 = 0
        if byte(index, "Z"), index + 1 == bytes.count {
            offset = 0
        } else if byte(index, "+", "-"), index + 6 == bytes.count, let hours = number(index + 1, 2), byte(index + 3, ":"),
            let minutes = number(index + 4, 2), hours < 24, minutes < 60
        {
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        guard Timestamp.validSeconds.contains(seconds) else { return nil }
        return (seconds, nanos)
    }

    /// Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm, the inverse of the one below).
    private static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// `2024-01-02T03:04:05.123456Z` (as many digits as the nanoseconds need: none, 3, 6 or 9).
    static func formatTimestamp(seconds: Int64, nanos: Int32) -> String {
        withFormattedTimestamp(seconds: seconds, nanos: nanos) { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes the time as a JSON string, its text straight into `writer`.
    static func writeTimestamp(seconds: Int64, nanos: Int32, to writer: inout JSONWriter) {
        writer.raw("\"")
        withFormattedTimestamp(seconds: seconds, nanos: nanos) { writer.raw($0) }
        writer.raw("\"")
    }

    /// Calls `body` with the time formatted as `formatTimestamp` spells it, as ASCII bytes on the stack: every
    /// document's JSON has two of these, and building them from small strings cost more than the rest of a
    /// small document's JSON.
    private static func withFormattedTimestamp<Result>(
        seconds: Int64, nanos: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        var fraction = Int64(nanos)
        var fractionDigits = nanos == 0 ? 0 : 9
        while fractionDigits > 0, fraction % 1000 == 0 {
            fraction /= 1000
            fractionDigits -= 3
        }
        // The year's digits and sign, `-MM-DDTHH:MM:SS`, `.` and up to nine digits, `Z`.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(4, digitCount(year)) + 1 + 15 + 10 + 1) { bytes in
            var at = 0
            func put(_ value: Int64, _ width: Int) {
                var value = value
                if value < 0 {
                    bytes[at] = UInt8(ascii: "-")
                    at += 1
                    value = -value
                }
                let digits = max(width, digitCount(value))
                var index = at + digits - 1
                for _ in 0..<digits {
                    bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                    index -= 1
                }
                at += digits
            }
            func put(_ character: Unicode.Scalar) {
                bytes[at] = UInt8(ascii: character)
                at += 1
            }
            put(year, 4)
            put("-")
            put(month, 2)
            put("-")
            put(day, 2)
            put("T")
            put(secondOfDay / 3600, 2)
            put(":")
            put(secondOfDay / 60 % 60, 2)
            put(":")
            put(secondOfDay % 60, 2)
            if fractionDigits > 0 {
                put(".")
                put(fraction, fractionDigits)
            }
            put("Z")
            return body(UnsafeBufferPointer(rebasing: bytes[..<at]))
        }
    }

    /// How many decimal digits `value`'s magnitude has.
    private static func digitCount(_ value: Int64) -> Int {
        var rest = value.magnitude
        var count = 1
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        return count
    }
}
