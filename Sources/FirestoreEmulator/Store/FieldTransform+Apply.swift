import EmulatorCore

extension FieldTransform {
    /// Checks the operand: increment, maximum and minimum take an integer or a double. (The message is the
    /// emulator's own; production's was not found.)
    func validate() throws(FirestoreError) {
        switch kind {
        case .increment(let operand), .maximum(let operand), .minimum(let operand):
            guard operand.number == nil else { return }
            throw FirestoreError(
                .invalidArgument,
                "The \(kindName) transform on field \(field) requires an integer or a double value, not \(operand.json.serialized())."
            )
        case .serverTimestamp, .appendMissingElements, .removeAllFromArray:
            return
        }
    }

    /// The field's value after the transform, from its value before (`nil` when absent), following the
    /// rules in `write.proto`.
    func transformed(_ current: FirestoreValue?, commitTime: Timestamp) -> FirestoreValue {
        switch kind {
        case .serverTimestamp:
            return commitTime.wholeMilliseconds.value
        case .increment(let operand):
            return Self.sum(current, operand)
        case .maximum(let operand):
            return Self.extreme(current, operand, keepsOperandWhen: { $0 > 0 })
        case .minimum(let operand):
            return Self.extreme(current, operand, keepsOperandWhen: { $0 < 0 })
        case .appendMissingElements(let elements):
            var array = current.flatMap(\.arrayElements) ?? []
            for element in elements where !array.contains(where: { Self.equivalent($0, element) }) {
                array.append(element)
            }
            return .array(array)
        case .removeAllFromArray(let elements):
            let array = current.flatMap(\.arrayElements) ?? []
            return .array(array.filter { value in !elements.contains { Self.equivalent($0, value) } })
        }
    }

    /// The transform's entry in `transform_results`: the new value, or `null` for the array transforms.
    func result(_ transformed: FirestoreValue) -> FirestoreValue {
        switch kind {
        case .serverTimestamp, .increment, .maximum, .minimum: return transformed
        case .appendMissingElements, .removeAllFromArray: return .null
        }
    }

    /// The transform's name in `FieldTransform`, for messages.
    private var kindName: String {
        switch kind {
        case .serverTimestamp: return "set_to_server_value"
        case .increment: return "increment"
        case .maximum: return "maximum"
        case .minimum: return "minimum"
        case .appendMissingElements: return "append_missing_elements"
        case .removeAllFromArray: return "remove_all_from_array"
        }
    }

    /// Increment: integer + integer saturates at the Int64 bounds; with a double both are doubles (IEEE 754);
    /// a missing or non-numeric field becomes the operand.
    private static func sum(_ current: FirestoreValue?, _ operand: FirestoreValue) -> FirestoreValue {
        switch (current, operand) {
        case (.integer(let a)?, .integer(let b)):
            let (sum, overflow) = a.addingReportingOverflow(b)
            return .integer(overflow ? (b > 0 ? .max : .min) : sum)
        case (let current?, _):
            guard let a = current.number, let b = operand.number else { return operand }
            return .double(a + b)
        case (nil, _):
            return operand
        }
    }

    /// Maximum or minimum: a missing or non-numeric field becomes the operand; NaN on either side wins;
    /// otherwise the operand replaces the field only when strictly larger (smaller), so equal values of mixed
    /// types (3 and 3.0, 0 and -0.0) keep the stored one.
    private static func extreme(
        _ current: FirestoreValue?, _ operand: FirestoreValue, keepsOperandWhen wins: (Int) -> Bool
    ) -> FirestoreValue {
        guard let current, current.number != nil else { return operand }
        if current.isNaN { return current }
        if operand.isNaN { return operand }
        return wins(FirestoreValue.compare(operand, current)) ? operand : current
    }

    /// Equality for the array transforms: numbers by value across integer and double, NaN equal to NaN.
    private static func equivalent(_ a: FirestoreValue, _ b: FirestoreValue) -> Bool {
        FirestoreValue.compare(a, b) == 0
    }
}

extension FirestoreValue {
    /// The elements, if this is an array.
    fileprivate var arrayElements: [FirestoreValue]? {
        if case .array(let values) = self { return values }
        return nil
    }
}
