import EmulatorCore
import Foundation
import Hummingbird
import NIOCore
import NIOFoundationCompat

extension Request {
    /// Collects the body up to `limit` bytes; a larger body is a 413 in Google's error format.
    public func collectBody(limit: Int) async throws -> Data {
        do {
            let buffer = try await body.collect(upTo: limit)
            return Data(buffer: buffer)
        } catch is NIOTooManyBytesError {
            throw APIError.payloadTooLarge(limit: limit)
        }
    }

    /// The path split into percent-decoded segments (`/a/b%2Fc` → `["a", "b/c"]`).
    public var pathSegments: [String] {
        uri.path.split(separator: "/", omittingEmptySubsequences: true).map {
            String($0).percentDecoded ?? String($0)
        }
    }

    /// The query string as form fields (`+` is a space; later duplicates are kept in order).
    public var queryFields: FormFields {
        FormFields(parsing: uri.query ?? "")
    }
}

/// Fields of an `application/x-www-form-urlencoded` string or URL query.
public struct FormFields: Sendable, Equatable {
    /// The fields in order.
    public var pairs: [(name: String, value: String)]

    /// Parses `a=1&b=two+words`. It splits on the bytes `&` and `=`, as the URL standard's form parser does
    /// (splitting the `String` by characters cost ~100 instructions a byte: a fifth of a WebChannel round's
    /// server work went to its query and body).
    public init(parsing text: String) {
        var pairs: [(name: String, value: String)] = []
        text.forEachPiece(separatedBy: UInt8(ascii: "&")) { part in
            guard !part.isEmpty else { return }
            if let equals = part.firstIndex(of: UInt8(ascii: "=")) {
                pairs.append((String(utf8Bytes: part[..<equals]).formDecoded, String(utf8Bytes: part[(equals + 1)...]).formDecoded))
            } else {
                pairs.append((String(utf8Bytes: part).formDecoded, ""))
            }
        }
        self.pairs = pairs
    }

    /// The first value of `name`.
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Every value of `name`.
    public func all(_ name: String) -> [String] {
        pairs.filter { $0.name == name }.map(\.value)
    }

    /// Compares names and values in order.
    public static func == (lhs: FormFields, rhs: FormFields) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.name == $1.name && $0.value == $1.value }
    }
}
