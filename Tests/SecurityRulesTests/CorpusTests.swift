import Foundation
import Testing

@testable import SecurityRules

/// Runs the conformance corpus in `Corpus/` (format in `Corpus/README.md`): every case of every file, except
/// those `Corpus/skips.json` lists with a reason. Expected results come from the Firebase documentation and
/// documented production behaviour, never from this implementation.
@Suite struct CorpusTests {
    static let corpus = Result { try Corpus.load() }.mapError { CorpusError("\($0)") }

    static var fileNames: [String] { (try? corpus.get().files.map(\.name)) ?? [] }

    @Test func corpusLoads() throws {
        let corpus = try Self.corpus.get()
        #expect(!corpus.files.isEmpty)
        for (key, reason) in corpus.skips {
            #expect(!reason.trimmingCharacters(in: .whitespaces).isEmpty, "skip \(key) has no reason")
            #expect(corpus.contains(key), "skip \(key) names no case")
        }
    }

    @Test(arguments: fileNames) func file(_ name: String) throws {
        let corpus = try Self.corpus.get()
        let file = try #require(corpus.files.first { $0.name == name })
        for testCase in file.cases where corpus.skips[testCase.id] == nil {
            let failure = testCase.run()
            #expect(failure == nil, "\(testCase.id): \(failure ?? "")")
        }
    }
}

// MARK: - Corpus

/// All corpus files and the skip list.
struct Corpus: Sendable {
    var files: [CorpusFile]
    /// `"<file>/<case name>"` (file name without `.json`) → why the case is skipped.
    var skips: [String: String]

    static func load() throws -> Corpus {
        guard let directory = Bundle.module.url(forResource: "Corpus", withExtension: nil) else {
            throw CorpusError("Corpus directory missing from the test bundle")
        }
        let urls = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" && $0.lastPathComponent != "skips.json" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let files = try urls.map { try CorpusFile(url: $0) }
        var skips: [String: String] = [:]
        let skipsURL = directory.appendingPathComponent("skips.json")
        if FileManager.default.fileExists(atPath: skipsURL.path) {
            for (key, reason) in try JSON.parse(Data(contentsOf: skipsURL)).object("skips.json") {
                skips[key] = try reason.string("skips.json: \(key)")
            }
        }
        return Corpus(files: files, skips: skips)
    }

    func contains(_ id: String) -> Bool { files.contains { $0.cases.contains { $0.id == id } } }
}

/// One data file: `{"cases": [...]}`.
struct CorpusFile: Sendable {
    var name: String
    var cases: [CorpusCase]

    init(url: URL) throws {
        name = url.deletingPathExtension().lastPathComponent
        let root = try JSON.parse(Data(contentsOf: url))
        let file = name
        cases = try root.field("cases", in: file).array(file).enumerated().map { index, json in
            try CorpusCase(json, file: file, index: index)
        }
        var seen = Set<String>()
        for testCase in cases where !seen.insert(testCase.name).inserted {
            throw CorpusError("\(file): duplicate case name '\(testCase.name)'")
        }
    }
}

struct CorpusError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Cases

/// One case: an expression, a request against a ruleset, or a compilation with expected diagnostics.
struct CorpusCase: Sendable {
    enum Kind: Sendable {
        case expression(text: String, bindings: [String: RuleValue])
        case request(RequestCase)
        case diagnostics(rules: String)
    }

    enum Expectation: Sendable {
        case value(RuleValue)
        case error
        /// Allowed or denied; `orCompileError`: a compile error also counts as a denial (limits production may
        /// enforce when compiling or when evaluating).
        case allow(Bool, orCompileError: Bool)
        case diagnostics([ExpectedDiagnostic])
    }

    struct RequestCase: Sendable {
        var service: RulesService
        var rules: String
        var path: RulePath
        var method: RuleMethod
        var request: RuleValue
        var resource: RuleValue
        var data: CorpusData
    }

    var file: String
    var name: String
    var kind: Kind
    var expect: Expectation

    /// `"<file>/<case name>"`, as `skips.json` keys it.
    var id: String { "\(file)/\(name)" }

    init(_ json: JSON, file: String, index: Int) throws {
        self.file = file
        let context = "\(file)[\(index)]"
        name = try json.field("name", in: context).string(context)
        let here = "\(file)/\(name)"
        let expectation = try json.field("expect", in: here)
        if let expr = json["expr"] {
            let bindings = try (json["bindings"]?.object(here) ?? [:]).mapValues { try $0.ruleValue(here) }
            kind = .expression(text: try expr.string(here), bindings: bindings)
            if let value = expectation["value"] {
                expect = .value(try value.ruleValue(here))
            } else if expectation["error"] == .bool(true) {
                expect = .error
            } else {
                throw CorpusError("\(here): expression cases expect {value} or {error: true}")
            }
        } else if let path = json["path"] {
            let service: RulesService = try json.field("service", in: here).string(here) == "storage" ? .storage : .firestore
            let methodName = try json.field("method", in: here).string(here)
            guard let method = RuleMethod(rawValue: methodName), method.concrete == [method] else {
                throw CorpusError("\(here): method must be get, list, create, update or delete")
            }
            let fullPath = RulePath(try path.string(here))
            var request = try (json["request"] ?? .object([])).ruleValue(here)
            var resource = try (json["resource"] ?? .null).ruleValue(here)
            if case .map(var fields) = request {
                fields["method"] = fields["method"] ?? .string(methodName)
                fields["path"] = fields["path"] ?? .path(fullPath)
                if service == .firestore, let proposed = fields["resource"] {
                    fields["resource"] = Self.document(proposed, at: fullPath)
                }
                request = .map(fields)
            }
            if service == .firestore { resource = Self.document(resource, at: fullPath) }
            let before = try Self.documents(json["data"], here)
            let after = try json["dataAfter"].map { try Self.documents($0, here) } ?? before
            kind = .request(
                RequestCase(
                    service: service, rules: try json.field("rules", in: here).string(here), path: fullPath,
                    method: method, request: request, resource: resource,
                    data: CorpusData(before: before, after: after)))
            guard case .bool(let allow) = try expectation.field("allow", in: here) else {
                throw CorpusError("\(here): request cases expect {allow: bool}")
            }
            expect = .allow(allow, orCompileError: expectation["orCompileError"] == .bool(true))
        } else {
            kind = .diagnostics(rules: try json.field("rules", in: here).string(here))
            expect = .diagnostics(
                try expectation.field("diagnostics", in: here).array(here).map { try ExpectedDiagnostic($0, here) })
        }
    }

    /// A Firestore document map `{data, id, __name__}`; `id` and `__name__` are filled in from `path` when absent.
    static func document(_ value: RuleValue, at path: RulePath) -> RuleValue {
        guard case .map(var fields) = value, fields["data"] != nil else { return value }
        fields["id"] = fields["id"] ?? .string(path.segments.last ?? "")
        fields["__name__"] = fields["__name__"] ?? .path(path)
        return .map(fields)
    }

    static func documents(_ json: JSON?, _ context: String) throws -> [RulePath: RuleValue] {
        var documents: [RulePath: RuleValue] = [:]
        for (key, value) in try json?.object(context) ?? [:] {
            let path = RulePath(key)
            documents[path] = document(try value.ruleValue(context), at: path)
        }
        return documents
    }

    /// Runs the case; `nil` if it passed, otherwise what went wrong (expected vs actual).
    func run() -> String? {
        switch (kind, expect) {
        case (.expression(let text, let bindings), .value(let expected)):
            switch RulesExpression.evaluate(text, bindings: bindings) {
            case .success(let actual):
                return actual.isSame(as: expected) ? nil : "expected \(expected.rendered), got \(actual.rendered)"
            case .failure(let error):
                return "expected \(expected.rendered), got error: \(error.message)"
            }
        case (.expression(let text, let bindings), .error):
            if case .success(let actual) = RulesExpression.evaluate(text, bindings: bindings) {
                return "expected an error, got \(actual.rendered)"
            }
            return nil
        case (.request(let request), .allow(let expected, let orCompileError)):
            let compilation = RulesCompiler.compile(RulesSource(fileName: fileName(request.rules), text: request.rules))
            guard let ruleset = compilation.ruleset else {
                let errors = compilation.diagnostics.map(\.description).joined(separator: "; ")
                return !expected && orCompileError ? nil : "the rules did not compile: \(errors)"
            }
            let decision = ruleset.evaluate(
                RulesRequest(
                    service: request.service, path: request.path, method: request.method, request: request.request,
                    resource: request.resource),
                data: request.data)
            guard decision.allowed != expected else { return nil }
            let explanation = decision.explanation.replacingOccurrences(of: "\n", with: " | ")
            return "expected \(expected ? "allow" : "deny"), got \(decision.allowed ? "allow" : "deny") (\(explanation))"
        case (.diagnostics(let rules), .diagnostics(let expected)):
            let actual = RulesCompiler.compile(RulesSource(fileName: fileName(rules), text: rules)).diagnostics
            let rendered = actual.isEmpty ? "none" : actual.map(\.description).joined(separator: "; ")
            if expected.isEmpty {
                let errors = actual.filter { $0.severity == .error }
                return errors.isEmpty ? nil : "expected no errors, got \(rendered)"
            }
            let missing = expected.filter { wanted in !actual.contains { wanted.matches($0) } }
            return missing.isEmpty ? nil : "expected \(missing.map(\.description).joined(separator: "; ")), got \(rendered)"
        default:
            return "case kind and expectation do not fit together"
        }
    }

    private func fileName(_ rules: String) -> String {
        rules.contains("service firebase.storage") ? "storage.rules" : "firestore.rules"
    }
}

/// One expected diagnostic: every field given must match; `contains` lists alternatives (any one, case-insensitive).
struct ExpectedDiagnostic: Sendable, CustomStringConvertible {
    var severity: Diagnostic.Severity?
    var file: String?
    var line: Int?
    var column: Int?
    var contains: [String]

    init(_ json: JSON, _ context: String) throws {
        if let name = try json["severity"]?.string(context) {
            guard let severity = Diagnostic.Severity(rawValue: name) else {
                throw CorpusError("\(context): severity is ERROR or WARNING")
            }
            self.severity = severity
        }
        file = try json["file"]?.string(context)
        line = try json["line"]?.int(context)
        column = try json["column"]?.int(context)
        switch json["contains"] {
        case .none: contains = []
        case .string(let text): contains = [text]
        case .some(let list): contains = try list.array(context).map { try $0.string(context) }
        }
    }

    func matches(_ diagnostic: Diagnostic) -> Bool {
        (severity.map { $0 == diagnostic.severity } ?? true)
            && (file.map { $0 == diagnostic.fileName } ?? true)
            && (line.map { $0 == diagnostic.location.line } ?? true)
            && (column.map { $0 == diagnostic.location.column } ?? true)
            && (contains.isEmpty || contains.contains { diagnostic.message.lowercased().contains($0.lowercased()) })
    }

    var description: String {
        let position = [file, line.map(String.init), column.map(String.init)].compactMap { $0 }.joined(separator: ":")
        let text = contains.isEmpty ? "" : " containing \(contains.map { "'\($0)'" }.joined(separator: " or "))"
        return "\(severity?.rawValue ?? "any") at \(position.isEmpty ? "any position" : position)\(text)"
    }
}

/// The documents of a request case: `data` as they are, `dataAfter` as they would be after the write.
struct CorpusData: RulesDataSource {
    var before: [RulePath: RuleValue]
    var after: [RulePath: RuleValue]

    func document(at path: RulePath) -> RuleValue? { before[path] }
    func documentAfter(at path: RulePath) -> RuleValue? { after[path] }
}

// MARK: - Values

extension RuleValue {
    /// Strict equality for expected results: types must agree (`1` is not `1.0`), NaN matches NaN, sets ignore order.
    func isSame(as other: RuleValue) -> Bool {
        switch (self, other) {
        case (.float(let a), .float(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.int, .float), (.float, .int): return false
        case (.list(let a), .list(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.isSame(as: $1) }
        case (.map(let a), .map(let b)):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map { value.isSame(as: $0) } ?? false }
        case (.set(let a), .set(let b)):
            return a.count == b.count && a.elements.allSatisfy { value in b.elements.contains { value.isSame(as: $0) } }
        default: return self == other
        }
    }

    var rendered: String { "\(String(describing: self)) (\(typeName))" }
}

extension JSON {
    /// The corpus value encoding: JSON scalars, arrays as lists, objects as maps, and the tagged objects
    /// `$float`, `$timestamp`, `$duration`, `$bytes`, `$path`, `$latlng` and `$set`.
    func ruleValue(_ context: String) throws -> RuleValue {
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .int(let value): return .int(value)
        case .float(let value): return .float(value)
        case .string(let value): return .string(value)
        case .array(let items): return .list(try items.map { try $0.ruleValue(context) })
        case .object(let fields):
            if fields.count == 1, case let (tag, value)? = fields.first, tag.hasPrefix("$") {
                return try Self.tagged(tag, value, context)
            }
            var map: [String: RuleValue] = [:]
            for (key, value) in fields { map[key] = try value.ruleValue(context) }
            return .map(map)
        }
    }

    private static func tagged(_ tag: String, _ value: JSON, _ context: String) throws -> RuleValue {
        let here = "\(context): \(tag)"
        switch tag {
        case "$float":
            switch try value.string(here) {
            case "NaN": return .float(.nan)
            case "Infinity": return .float(.infinity)
            case "-Infinity": return .float(-.infinity)
            case let other: throw CorpusError("\(here): unknown float \(other)")
            }
        case "$timestamp": return .timestamp(try timestamp(value.string(here), here))
        case "$duration": return .duration(try duration(value.string(here), here))
        case "$bytes":
            guard let data = Data(base64Encoded: try value.string(here)) else { throw CorpusError("\(here): bad base64") }
            return .bytes([UInt8](data))
        case "$path": return .path(RulePath(try value.string(here)))
        case "$latlng":
            let parts = try value.array(here).map { try $0.number(here) }
            guard parts.count == 2 else { throw CorpusError("\(here): expected [lat, lng]") }
            return .latlng(RuleLatLng(latitude: parts[0], longitude: parts[1]))
        case "$set": return .set(RuleSet(try value.array(here).map { try $0.ruleValue(here) }))
        default: throw CorpusError("\(here): unknown tag")
        }
    }

    /// `2024-03-01T13:45:30.123456Z` (UTC, up to nine fraction digits).
    private static func timestamp(_ text: String, _ context: String) throws -> RuleTimestamp {
        let parts = text.dropLast().split(whereSeparator: { "-T:".contains($0) }).map(String.init)
        guard text.hasSuffix("Z"), parts.count == 6, let year = Int64(parts[0]), let month = Int64(parts[1]),
            let day = Int64(parts[2]), let hour = Int64(parts[3]), let minute = Int64(parts[4])
        else { throw CorpusError("\(context): bad timestamp \(text)") }
        let (seconds, nanos) = try secondsAndNanos(parts[5], context)
        // Days from civil (proleptic Gregorian), after Howard Hinnant's algorithm.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return RuleTimestamp(seconds: days * 86_400 + hour * 3_600 + minute * 60 + seconds, nanos: nanos)
    }

    /// `3.5s`, `-1800s`.
    private static func duration(_ text: String, _ context: String) throws -> RuleDuration {
        guard text.hasSuffix("s") else { throw CorpusError("\(context): bad duration \(text)") }
        let negative = text.hasPrefix("-")
        let (seconds, nanos) = try secondsAndNanos(String(text.dropLast().drop { $0 == "-" }), context)
        return negative ? RuleDuration(seconds: -seconds, nanos: -nanos) : RuleDuration(seconds: seconds, nanos: nanos)
    }

    private static func secondsAndNanos(_ text: String, _ context: String) throws -> (Int64, Int32) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        let fraction = pieces.count > 1 ? String(pieces[1]) : ""
        guard pieces.count <= 2, fraction.count <= 9, let seconds = Int64(pieces[0]),
            let nanos = Int32(fraction.padding(toLength: 9, withPad: "0", startingAt: 0))
        else { throw CorpusError("\(context): bad seconds \(text)") }
        return (seconds, nanos)
    }
}

// MARK: - JSON

/// A JSON value that keeps integers apart from floats (`1` is an int, `1.0` and `1e3` are floats), which
/// `JSONSerialization` does not guarantee.
enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.float(let a), .float(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a.elementsEqual(b) { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    subscript(key: String) -> JSON? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.0 == key }?.1
    }

    func field(_ key: String, in context: String) throws -> JSON {
        guard let value = self[key] else { throw CorpusError("\(context): missing \"\(key)\"") }
        return value
    }

    func string(_ context: String) throws -> String {
        guard case .string(let value) = self else { throw CorpusError("\(context): expected a string") }
        return value
    }

    func int(_ context: String) throws -> Int {
        guard case .int(let value) = self else { throw CorpusError("\(context): expected an integer") }
        return Int(value)
    }

    func number(_ context: String) throws -> Double {
        switch self {
        case .int(let value): return Double(value)
        case .float(let value): return value
        default: throw CorpusError("\(context): expected a number")
        }
    }

    func array(_ context: String) throws -> [JSON] {
        guard case .array(let items) = self else { throw CorpusError("\(context): expected an array") }
        return items
    }

    func object(_ context: String) throws -> [String: JSON] {
        guard case .object(let fields) = self else { throw CorpusError("\(context): expected an object") }
        return Dictionary(fields, uniquingKeysWith: { _, last in last })
    }

    static func parse(_ data: Data) throws -> JSON {
        var parser = JSONParser(bytes: [UInt8](data))
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("trailing characters") }
        return value
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    var index = 0

    func error(_ message: String) -> CorpusError { CorpusError("JSON at byte \(index): \(message)") }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    mutating func value() throws -> JSON {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var fields: [(String, JSON)] = []
            skipWhitespace()
            if consume("}") { return .object(fields) }
            repeat {
                skipWhitespace()
                let key = try string()
                skipWhitespace()
                guard consume(":") else { throw error("expected ':'") }
                fields.append((key, try value()))
                skipWhitespace()
            } while consume(",")
            guard consume("}") else { throw error("expected '}'") }
            return .object(fields)
        case UInt8(ascii: "["):
            index += 1
            var items: [JSON] = []
            skipWhitespace()
            if consume("]") { return .array(items) }
            repeat {
                items.append(try value())
                skipWhitespace()
            } while consume(",")
            guard consume("]") else { throw error("expected ']'") }
            return .array(items)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return try number()
        }
    }

    mutating func consume(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func literal(_ word: String, _ value: JSON) throws -> JSON {
        let utf8 = Array(word.utf8)
        guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
            throw error("unexpected character")
        }
        index += utf8.count
        return value
    }

    mutating func number() throws -> JSON {
        let start = index
        while index < bytes.count, "-+.eE0123456789".utf8.contains(bytes[index]) { index += 1 }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if text.contains(where: { ".eE".contains($0) }) {
            guard let value = Double(text) else { throw error("bad number \(text)") }
            return .float(value)
        }
        guard let value = Int64(text) else { throw error("bad integer \(text)") }
        return .int(value)
    }

    mutating func string() throws -> String {
        guard consume("\"") else { throw error("expected a string") }
        var utf8: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw error("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), consume("\\"), consume("u") {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (try hex4() - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("bad \\u escape") }
                    utf8 += Array(String(Character(unicode)).utf8)
                default: utf8.append(escape)
                }
            default: utf8.append(byte)
            }
        }
        throw error("unterminated string")
    }

    mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        else { throw error("bad \\u escape") }
        index += 4
        return value
    }
}
