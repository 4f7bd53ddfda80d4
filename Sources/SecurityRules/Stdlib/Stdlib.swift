/// The standard library: operators, methods of every type, and the global / namespaced functions
/// (`int()`, `math.floor()`, `timestamp.date()`, `hashing.sha256()`, ...). A table of overloads, kept apart
/// from the evaluator so each can be tested alone.
///
/// Semantics follow the Firebase rules reference (firebase.google.com/docs/reference/rules/rules); where it
/// is silent, the CEL specification the language grew from. Each type's methods live in `Stdlib+Type.swift`.
///
/// Data-access functions (`get`, `exists`, `getAfter`, `existsAfter`, `firestore.get`, `firestore.exists`)
/// and `debug` are the evaluator's, not this table's.
enum Stdlib {
    /// `lhs op rhs` for every operator but `&&` and `||` (which the evaluator short-circuits; given here
    /// two values, they are strict boolean operators).
    static func binary(_ op: BinaryOperator, _ lhs: RuleValue, _ rhs: RuleValue) throws(RuleError) -> RuleValue {
        switch op {
        case .equal: return .bool(lhs == rhs)
        case .notEqual: return .bool(lhs != rhs)
        case .less, .lessOrEqual, .greater, .greaterOrEqual: return .bool(try compare(op, lhs, rhs))
        case .in: return .bool(try membership(lhs, in: rhs))
        case .add: return try add(lhs, rhs)
        case .subtract: return try subtract(lhs, rhs)
        case .multiply, .divide, .remainder: return try multiplicative(op, lhs, rhs)
        case .and, .or:
            guard case .bool(let left) = lhs, case .bool(let right) = rhs else { throw noOperator(op, lhs, rhs) }
            return .bool(op == .and ? left && right : left || right)
        }
    }

    /// `!value` (booleans) and `-value` (numbers and durations).
    static func unary(_ op: UnaryOperator, _ value: RuleValue) throws(RuleError) -> RuleValue {
        switch (op, value) {
        case (.not, .bool(let bool)): return .bool(!bool)
        case (.negate, .int(let int)):
            guard int != .min else { throw integerOverflow }
            return .int(-int)
        case (.negate, .float(let float)): return .float(-float)
        case (.negate, .duration(let duration)): return .duration(duration.negated)
        default: throw RuleError(.typeMismatch, "no matching overload for operator '\(op.rawValue)' on \(value.typeName)")
        }
    }

    /// `receiver[index]`: lists and strings by int, maps by string key, paths by int.
    static func index(_ receiver: RuleValue, _ index: RuleValue) throws(RuleError) -> RuleValue {
        switch (receiver, index) {
        case (.list(let list), .int(let position)): return list[try checkedIndex(position, count: list.count)]
        case (.string(let string), .int(let position)): return .string(try character(of: string, at: position))
        case (.path(let path), .int(let position)):
            return .string(path.segments[try checkedIndex(position, count: path.segments.count)])
        case (.path, .string(let name)): throw RuleError(.undefinedProperty, "Path has no binding named '\(name)'.")
        case (.map(let map), .string(let key)):
            guard let value = map[key] else { throw RuleError(.undefinedProperty, "Property \(key) is undefined on object.") }
            return value
        default: throw RuleError(.typeMismatch, "no matching overload for index of \(receiver.typeName) by \(index.typeName)")
        }
    }

    /// `receiver[from:to]` on lists and strings (UTF-16 code units); an absent bound is that end; `to` is
    /// exclusive.
    static func slice(_ receiver: RuleValue, _ from: RuleValue?, _ to: RuleValue?) throws(RuleError) -> RuleValue {
        switch receiver {
        case .list(let list):
            return .list(Array(list[try checkedRange(from, to, count: list.count)]))
        case .string(let string):
            let units = Array(string.utf16)
            return .string(String(decoding: units[try checkedRange(from, to, count: units.count)], as: UTF16.self))
        default: throw RuleError(.typeMismatch, "no matching overload for range of \(receiver.typeName)")
        }
    }

    /// `receiver.name` when `receiver` is not a map (maps are looked up by the evaluator): no other type
    /// has properties, so this is always an error.
    static func property(_ receiver: RuleValue, _ name: String) throws(RuleError) -> RuleValue {
        throw RuleError(.undefinedProperty, "Property \(name) is undefined on \(receiver.typeName).")
    }

    /// `receiver.name(arguments)`.
    static func method(_ receiver: RuleValue, _ name: String, _ arguments: [RuleValue]) throws(RuleError) -> RuleValue {
        switch receiver {
        case .string(let value): return try invoke(stringMethods, value, receiver, name, arguments)
        case .bytes(let value): return try invoke(bytesMethods, value, receiver, name, arguments)
        case .list(let value): return try invoke(listMethods, value, receiver, name, arguments)
        case .map(let value): return try invoke(mapMethods, value, receiver, name, arguments)
        case .mapDiff(let value): return try invoke(mapDiffMethods, value, receiver, name, arguments)
        case .set(let value): return try invoke(setMethods, value, receiver, name, arguments)
        case .path(let value): return try invoke(pathMethods, value, receiver, name, arguments)
        case .timestamp(let value): return try invoke(timestampMethods, value, receiver, name, arguments)
        case .duration(let value): return try invoke(durationMethods, value, receiver, name, arguments)
        case .latlng(let value): return try invoke(latLngMethods, value, receiver, name, arguments)
        case .null: throw RuleError(.nullValue, "Null value error.")
        case .bool, .int, .float: throw RuleError(.typeMismatch, "no matching overload for '\(name)' on \(receiver.typeName)")
        }
    }

    /// A global (`namespace == nil`: `int(x)`) or namespaced (`math.abs(x)`) function; `nil` if there is
    /// no such function (the checker reports unknown functions at compile time).
    static func function(namespace: String?, _ name: String, _ arguments: [RuleValue]) throws(RuleError) -> RuleValue? {
        let key = namespace.map { "\($0).\(name)" } ?? name
        guard let function = functions[key] else { return nil }
        try checkArity(function.arity, key, arguments.count)
        return try function.call(Arguments(name: key, receiverType: nil, values: arguments))
    }

    /// The namespaces whose members are functions (`math`, `timestamp`, `duration`, `hashing`, `latlng`).
    static let namespaces: Set<String> = Set(functions.keys.compactMap { key in
        key.firstIndex(of: ".").map { String(key[..<$0]) }
    })

    /// Known global and namespaced functions with their allowed argument counts, for compile-time checks.
    /// Keys are `name` or `namespace.name`.
    static let functionArities: [String: ClosedRange<Int>] = functions.mapValues(\.arity)

    /// Method names of every type with the argument counts some type accepts (for the checker's warnings:
    /// a method no type has, or a count no overload takes, cannot succeed).
    static let methodArities: [String: ClosedRange<Int>] = methodAritiesByType.reduce(into: [:]) { all, table in
        all.merge(table.1) { a, b in min(a.lowerBound, b.lowerBound)...max(a.upperBound, b.upperBound) }
    }

    /// The argument counts method `name` takes on a receiver of `types` (every type's when unknown or when
    /// several); `nil` when no such type has the method.
    static func methodArity(_ name: String, on types: StaticTypes?) -> ClosedRange<Int>? {
        if let types, let table = methodAritiesByType.first(where: { $0.0 == types }) {
            return table.1[name] ?? methodArities[name]
        }
        return methodArities[name]
    }

    /// Each type's methods with their argument counts.
    private static let methodAritiesByType: [(StaticTypes, [String: ClosedRange<Int>])] = [
        (.string, stringMethods.mapValues(\.arity)), (.bytes, bytesMethods.mapValues(\.arity)),
        (.list, listMethods.mapValues(\.arity)), (.map, mapMethods.mapValues(\.arity)),
        (.mapDiff, mapDiffMethods.mapValues(\.arity)), (.set, setMethods.mapValues(\.arity)),
        (.path, pathMethods.mapValues(\.arity)), (.timestamp, timestampMethods.mapValues(\.arity)),
        (.duration, durationMethods.mapValues(\.arity)), (.latlng, latLngMethods.mapValues(\.arity)),
    ]

    /// Every global and namespaced function, by `name` or `namespace.name`.
    static let functions: [String: Function] = [
        conversionFunctions, mathFunctions, hashingFunctions, timestampFunctions, durationFunctions,
        latLngFunctions,
    ].reduce(into: [:]) { all, table in all.merge(table) { first, _ in first } }
}

extension Stdlib {
    /// A method of values of type `Receiver`: the argument counts it takes and what it does.
    struct Method<Receiver>: Sendable {
        /// Allowed argument counts.
        let arity: ClosedRange<Int>
        /// The implementation; argument count already checked.
        let call: @Sendable (Receiver, Arguments) throws(RuleError) -> RuleValue

        /// A method taking `arity` arguments.
        init(_ arity: ClosedRange<Int> = 0...0, _ call: @escaping @Sendable (Receiver, Arguments) throws(RuleError) -> RuleValue) {
            self.arity = arity
            self.call = call
        }
    }

    /// A global or namespaced function: the argument counts it takes and what it does.
    struct Function: Sendable {
        /// Allowed argument counts.
        let arity: ClosedRange<Int>
        /// The implementation; argument count already checked.
        let call: @Sendable (Arguments) throws(RuleError) -> RuleValue

        /// A function taking `arity` arguments.
        init(_ arity: ClosedRange<Int>, _ call: @escaping @Sendable (Arguments) throws(RuleError) -> RuleValue) {
            self.arity = arity
            self.call = call
        }
    }

    /// The arguments of one call, with typed access that reports a wrong type as "no matching overload".
    struct Arguments {
        /// The method or function name, for messages.
        let name: String
        /// The receiver's type name for a method, `nil` for a function.
        let receiverType: String?
        /// The values.
        let values: [RuleValue]

        /// Argument `index`.
        subscript(index: Int) -> RuleValue { values[index] }

        /// The error for arguments no overload of this method or function accepts.
        var mismatch: RuleError {
            let types = values.map(\.typeName).joined(separator: ", ")
            let on = receiverType.map { " on \($0)" } ?? ""
            return RuleError(.typeMismatch, "no matching overload for '\(name)'\(on)\(values.isEmpty ? "" : " with (\(types))")")
        }

        /// Argument `index` as a string.
        func string(_ index: Int) throws(RuleError) -> String {
            guard case .string(let value) = values[index] else { throw mismatch }
            return value
        }

        /// Argument `index` as an int.
        func int(_ index: Int) throws(RuleError) -> Int64 {
            guard case .int(let value) = values[index] else { throw mismatch }
            return value
        }

        /// Argument `index` as a number (an int is widened to a float).
        func number(_ index: Int) throws(RuleError) -> Double {
            switch values[index] {
            case .int(let value): return Double(value)
            case .float(let value): return value
            default: throw mismatch
            }
        }

        /// Argument `index` as a list.
        func list(_ index: Int) throws(RuleError) -> [RuleValue] {
            guard case .list(let value) = values[index] else { throw mismatch }
            return value
        }

        /// Argument `index` as a map.
        func map(_ index: Int) throws(RuleError) -> [String: RuleValue] {
            guard case .map(let value) = values[index] else { throw mismatch }
            return value
        }

        /// Argument `index` as a set.
        func set(_ index: Int) throws(RuleError) -> RuleSet {
            guard case .set(let value) = values[index] else { throw mismatch }
            return value
        }

        /// Argument `index` as a set, a list taken as the set of its elements.
        func setOrList(_ index: Int) throws(RuleError) -> RuleSet {
            switch values[index] {
            case .set(let value): return value
            case .list(let value): return RuleSet(value)
            default: throw mismatch
            }
        }
    }

    /// Looks `name` up in `table` and calls it, checking the argument count.
    private static func invoke<Receiver>(
        _ table: [String: Method<Receiver>], _ value: Receiver, _ receiver: RuleValue, _ name: String,
        _ arguments: [RuleValue]
    ) throws(RuleError) -> RuleValue {
        guard let method = table[name] else {
            throw RuleError(.typeMismatch, "no matching overload for '\(name)' on \(receiver.typeName)")
        }
        try checkArity(method.arity, name, arguments.count)
        return try method.call(value, Arguments(name: name, receiverType: receiver.typeName, values: arguments))
    }

    private static func checkArity(_ arity: ClosedRange<Int>, _ name: String, _ count: Int) throws(RuleError) {
        guard !arity.contains(count) else { return }
        let expected = arity.count == 1 ? "\(arity.lowerBound)" : "\(arity.lowerBound) to \(arity.upperBound)"
        throw RuleError(.argumentCount, "'\(name)' takes \(expected) argument\(arity.upperBound == 1 ? "" : "s"), got \(count)")
    }

    /// `position` as an array index into `count` elements; negative or past the end is an error.
    static func checkedIndex(_ position: Int64, count: Int) throws(RuleError) -> Int {
        guard position >= 0, position < count else {
            throw RuleError(.outOfRange, "Index \(position) out of range for size \(count).")
        }
        return Int(position)
    }

    /// `[from:to]` as a range of `count` elements: absent bounds are the ends, both must be ints with
    /// `0 <= from < to <= count` (an empty range is an error, as in the official engine).
    private static func checkedRange(_ from: RuleValue?, _ to: RuleValue?, count: Int) throws(RuleError) -> Range<Int> {
        func bound(_ value: RuleValue?, _ absent: Int) throws(RuleError) -> Int64 {
            switch value {
            case nil: return Int64(absent)
            case .int(let bound)?: return bound
            case let value?: throw RuleError(.typeMismatch, "range bounds must be ints, got \(value.typeName)")
            }
        }
        let lower = try bound(from, 0)
        let upper = try bound(to, count)
        guard lower >= 0, lower < upper, upper <= count else {
            throw RuleError(.outOfRange, "Range [\(lower):\(upper)] out of range for size \(count).")
        }
        return Int(lower)..<Int(upper)
    }

    /// The error for an arithmetic result outside the 64-bit integer range.
    static var integerOverflow: RuleError { RuleError(.outOfRange, "integer overflow") }

    /// The error for an operator applied to operands it has no overload for.
    static func noOperator(_ op: BinaryOperator, _ lhs: RuleValue, _ rhs: RuleValue) -> RuleError {
        RuleError(.typeMismatch, "no matching overload for operator '\(op.rawValue)' on \(lhs.typeName) and \(rhs.typeName)")
    }
}
