import EmulatorCore
import Foundation

/// proto3 JSON for `google.firestore.v1.Value`, as REST clients send and expect it.
extension FirestoreValue {
    /// Decodes a `Value` object; `field` names it in production's error messages.
    init(json: JSONValue, field: String = "value") throws(APIError) {
        guard let object = json.objectValue, object.count == 1, let (kind, payload) = object.first else {
            throw .firestore(.invalidArgument, "Invalid value at '\(field)': a Value must set exactly one of its fields.")
        }
        switch kind {
        case "nullValue":
            guard payload == .null || payload == "NULL_VALUE" else { throw Self.invalid(field, kind, payload) }
            self = .null
        case "booleanValue":
            guard let value = payload.boolValue else { throw Self.invalid(field, kind, payload) }
            self = .boolean(value)
        case "integerValue":
            if let value = payload.intValue, payload.doubleValue.map({ $0.rounded() == $0 }) ?? false {
                self = .integer(value)
            } else if let text = payload.stringValue, let value = Int64(text) {
                self = .integer(value)
            } else {
                throw Self.invalid(field, kind, payload)
            }
        case "doubleValue":
            switch payload {
            case .int(let value): self = .double(Double(value))
            case .double(let value): self = .double(value)
            case .string("NaN"): self = .double(.nan)
            case .string("Infinity"): self = .double(.infinity)
            case .string("-Infinity"): self = .double(-.infinity)
            case .string(let text) where Double(text) != nil: self = .double(Double(text)!)
            default: throw Self.invalid(field, kind, payload)
            }
        case "timestampValue":
            guard let text = payload.stringValue, let (seconds, nanos) = Self.parseTimestamp(text) else {
                throw Self.invalid(field, kind, payload)
            }
            self = .timestamp(seconds: seconds, nanos: nanos)
        case "stringValue":
            guard let value = payload.stringValue else { throw Self.invalid(field, kind, payload) }
            self = .string(value)
        case "bytesValue":
            guard let text = payload.stringValue, let data = Data(base64Encoded: text) ?? Data(base64URLEncoded: text)
            else { throw Self.invalid(field, kind, payload) }
            self = .bytes(Array(data))
        case "referenceValue":
            guard let value = payload.stringValue else { throw Self.invalid(field, kind, payload) }
            self = .reference(value)
        case "geoPointValue":
            let latitude = payload["latitude"]?.doubleValue ?? (payload["latitude"] == nil ? 0 : nil)
            let longitude = payload["longitude"]?.doubleValue ?? (payload["longitude"] == nil ? 0 : nil)
            guard payload.objectValue != nil, let latitude, let longitude else { throw Self.invalid(field, kind, payload) }
            self = .geoPoint(latitude: latitude, longitude: longitude)
        case "arrayValue":
            guard let object = payload.objectValue else { throw Self.invalid(field, kind, payload) }
            var values: [FirestoreValue] = []
            for (index, item) in (object["values"]?.arrayValue ?? []).enumerated() {
                values.append(try FirestoreValue(json: item, field: "\(field).values[\(index)]"))
            }
            self = .array(values)
        case "mapValue":
            guard let object = payload.objectValue else { throw Self.invalid(field, kind, payload) }
            self = .map(try Self.fields(object["fields"] ?? [:], field: "\(field).fields"))
        default:
            throw .firestore(.invalidArgument, "Invalid JSON payload received. Unknown name \"\(kind)\" at '\(field)': Cannot find field.")
        }
    }

    /// Decodes a `fields` map (`{name: Value}`).
    static func fields(_ json: JSONValue, field: String = "fields") throws(APIError) -> [String: FirestoreValue] {
        guard let object = json.objectValue else {
            throw .firestore(.invalidArgument, "Invalid value at '\(field)': expected a map of field names to values.")
        }
        var result: [String: FirestoreValue] = [:]
        for (name, value) in object {
            result[name] = try FirestoreValue(json: value, field: "\(field)[\(name)]")
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
            return ["geoPointValue": ["latitude": .double(latitude), "longitude": .double(longitude)]]
        case .array(let values): return ["arrayValue": values.isEmpty ? [:] : ["values": .array(values.map(\.json))]]
        case .map(let fields):
            return ["mapValue": fields.isEmpty ? [:] : ["fields": .object(fields.mapValues(\.json))]]
        }
    }

    private static func invalid(_ field: String, _ kind: String, _ payload: JSONValue) -> APIError {
        .firestore(.invalidArgument, "Invalid value at '\(field).\(kind)' (\(kind)), \(payload.serialized())")
    }

    /// RFC 3339 with 0–9 fractional digits and `Z` or an offset.
    static func parseTimestamp(_ text: String) -> (Int64, Int32)? {
        var text = Substring(text)
        var nanos: Int32 = 0
        if let dot = text.firstIndex(of: ".") {
            let digits = text[text.index(after: dot)...].prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 9, let value = Int32(digits) else { return nil }
            nanos = value * Int32(pow(10, Double(9 - digits.count)))
            text = text[..<dot] + text[text.index(dot, offsetBy: digits.count + 1)...]
        }
        guard let date = try? Date(String(text), strategy: .iso8601) else { return nil }
        return (Int64(date.timeIntervalSince1970.rounded(.down)), nanos)
    }

    /// `2024-01-02T03:04:05.123456Z` (microseconds when there are any, as the backend stores them).
    static func formatTimestamp(seconds: Int64, nanos: Int32) -> String {
        let date = Date(timeIntervalSince1970: TimeInterval(seconds))
        var base = Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).format(date)
        if base.hasSuffix("Z") { base.removeLast() }
        guard nanos != 0 else { return base + "Z" }
        var fraction = String(format: "%09d", nanos)
        while fraction.hasSuffix("000") { fraction.removeLast(3) }
        return base + "." + fraction + "Z"
    }
}
