import EmulatorCore
import Foundation

/// A JSON request body with typed accessors that reject wrong types the way the API's schema does.
///
/// Keys are accepted in camelCase or snake_case (converted on the way in), as the official emulator does.
struct RequestBody: Sendable {
    var fields: [String: JSONValue]

    init(_ fields: [String: JSONValue] = [:]) {
        self.fields = Self.camelCased(fields)
    }

    /// Parses a JSON object body; an empty body is `{}`.
    init(json data: Data) throws(APIError) {
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            self.init()
            return
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(data)
        } catch {
            throw .invalidPayload("Unexpected token in JSON body.", reason: "parseError")
        }
        guard let object = value.objectValue else {
            throw .invalidPayload("request body must be object")
        }
        self.init(object)
    }

    func has(_ key: String) -> Bool {
        if let value = fields[key], value != .null { return true }
        return false
    }

    func string(_ key: String) throws(APIError) -> String? {
        switch fields[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw .invalidPayload("/\(key) must be string")
        }
    }

    /// A string that must be present and non-empty, else the Auth error `missing`.
    func requiredString(_ key: String, missing: String) throws(APIError) -> String {
        guard let value = try string(key), !value.isEmpty else { throw .auth(missing) }
        return value
    }

    func bool(_ key: String) throws(APIError) -> Bool? {
        switch fields[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw .invalidPayload("/\(key) must be boolean")
        }
    }

    /// An int64 sent as a JSON number or a decimal string, as proto3 JSON allows.
    func int64(_ key: String) throws(APIError) -> Int64? {
        switch fields[key] {
        case nil, .null?: return nil
        case .string(let text)?:
            guard let value = Int64(text) else { throw .invalidPayload("/\(key) must match format \"int64\"") }
            return value
        case let value?:
            guard let number = value.intValue else { throw .invalidPayload("/\(key) must be integer") }
            return number
        }
    }

    func strings(_ key: String) throws(APIError) -> [String]? {
        switch fields[key] {
        case nil, .null?: return nil
        case .array(let items)?:
            var result: [String] = []
            for (index, item) in items.enumerated() {
                guard let text = item.stringValue else { throw .invalidPayload("/\(key)/\(index) must be string") }
                result.append(text)
            }
            return result
        default: throw .invalidPayload("/\(key) must be array")
        }
    }

    func object(_ key: String) throws(APIError) -> RequestBody? {
        switch fields[key] {
        case nil, .null?: return nil
        case .object(let value)?: return RequestBody(value)
        default: throw .invalidPayload("/\(key) must be object")
        }
    }

    func objects(_ key: String) throws(APIError) -> [RequestBody]? {
        switch fields[key] {
        case nil, .null?: return nil
        case .array(let items)?:
            var result: [RequestBody] = []
            for (index, item) in items.enumerated() {
                guard let object = item.objectValue else {
                    throw .invalidPayload("/\(key)/\(index) must be object")
                }
                result.append(RequestBody(object))
            }
            return result
        default: throw .invalidPayload("/\(key) must be array")
        }
    }

    private static func camelCased(_ fields: [String: JSONValue]) -> [String: JSONValue] {
        guard fields.keys.contains(where: { $0.contains("_") }) else { return fields }
        var result: [String: JSONValue] = [:]
        for (key, value) in fields {
            result[camelCase(key)] = value
        }
        return result
    }

    static func camelCase(_ key: String) -> String {
        guard key.contains("_") else { return key }
        let parts = key.split(separator: "_", omittingEmptySubsequences: true)
        guard let first = parts.first else { return key }
        return String(first) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
