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

    /// Parses `a=1&b=two+words`.
    public init(parsing text: String) {
        pairs = text.split(separator: "&", omittingEmptySubsequences: true).map { part in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (pieces[0].formDecoded, pieces.count > 1 ? pieces[1].formDecoded : "")
        }
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
