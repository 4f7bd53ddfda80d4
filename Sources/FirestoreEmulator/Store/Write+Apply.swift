import EmulatorCore

extension Write {
    /// Applies the write to `current` (the stored document, `nil` if missing) at `commitTime`: checks the
    /// write and its precondition, sets or patches the fields, runs the transforms in order and checks
    /// production's limits on the result.
    ///
    /// Returns the document afterwards (`nil` when it does not exist) and the write's result. A delete or a
    /// verify has no update time; a write that leaves the fields exactly as they were keeps the document
    /// and reports its previous update time, as `WriteResult.update_time` documents.
    func apply(
        to current: Document?, commitTime: Timestamp, database: DatabaseName
    ) throws(FirestoreError) -> (document: Document?, result: WriteResult) {
        try validate()
        try check(precondition, against: current, database: database)
        var fields: [String: FirestoreValue]
        switch operation {
        case .delete:
            return (nil, WriteResult(updateTime: nil))
        case .verify:
            return (current, WriteResult(updateTime: nil))
        case .update(let written):
            if let updateMask {
                fields = current?.fields ?? [:]
                for field in updateMask {
                    FirestoreValue.set(FirestoreValue.value(at: field, in: written), at: field.segments[...], in: &fields)
                }
            } else {
                fields = written
            }
        case .transform:
            fields = current?.fields ?? [:]
        }
        var results: [FirestoreValue] = []
        results.reserveCapacity(transforms.count)
        for transform in transforms {
            let value = transform.transformed(FirestoreValue.value(at: transform.field, in: fields), commitTime: commitTime)
            FirestoreValue.set(value, at: transform.field.segments[...], in: &fields)
            results.append(transform.result(value))
        }
        if let current, Self.identical(current.fields, fields) {
            return (current, WriteResult(updateTime: current.updateTime, transformResults: results))
        }
        let document = Document(
            path: path, fields: fields, createTime: current?.createTime ?? commitTime, updateTime: commitTime)
        try DocumentLimits.validate(document, in: database)
        return (document, WriteResult(updateTime: commitTime, transformResults: results))
    }

    /// Checks what the decoders cannot: masks and transforms only where they belong, no reserved names in
    /// their paths, numeric operands, at most one transform per field. (These messages are the emulator's
    /// own; production's were not found.)
    func validate() throws(FirestoreError) {
        switch operation {
        case .update:
            break
        case .transform:
            if transforms.isEmpty {
                throw FirestoreError(.invalidArgument, "A transform of \(path) must have at least one field transform.")
            }
        case .delete, .verify:
            if !transforms.isEmpty {
                throw FirestoreError(.invalidArgument, "update_transforms can be set only when the operation is update.")
            }
        }
        if let updateMask {
            guard case .update = operation else {
                throw FirestoreError(.invalidArgument, "update_mask can be set only when the operation is update.")
            }
            for field in updateMask where field.segments.contains(where: DocumentLimits.isReserved) {
                throw FieldPath.invalid(field.description)
            }
        }
        var transformed: Set<FieldPath> = []
        for transform in transforms {
            if transform.field.segments.contains(where: DocumentLimits.isReserved) {
                throw FieldPath.invalid(transform.field.description)
            }
            guard transformed.insert(transform.field).inserted else {
                throw FirestoreError(
                    .invalidArgument, "Cannot have more than one transform on the same field: \(transform.field).")
            }
            try transform.validate()
        }
    }

    /// Checks the precondition: NOT_FOUND `No document to update: <name>` when the document must exist
    /// (or have an update time) but does not; ALREADY_EXISTS `Document already exists: <name>` when it must
    /// not exist but does; FAILED_PRECONDITION with production's version message when the update time
    /// differs (versions are microseconds since the epoch).
    private func check(
        _ precondition: Precondition?, against current: Document?, database: DatabaseName
    ) throws(FirestoreError) {
        switch (precondition, current) {
        case (nil, _), (.exists(true)?, .some), (.exists(false)?, nil):
            return
        case (.exists(true)?, nil), (.updateTime?, nil):
            throw FirestoreError(.notFound, "No document to update: \(path.name(in: database))")
        case (.exists(false)?, .some):
            throw FirestoreError(.alreadyExists, "Document already exists: \(path.name(in: database))")
        case (.updateTime(let required)?, let current?):
            guard current.updateTime != required else { return }
            throw FirestoreError(
                .failedPrecondition,
                "the stored version (\(current.updateTime.microseconds)) does not match the required base version (\(required.microseconds))"
            )
        }
    }

    /// Whether two sets of fields are the same stored data: unlike `==`, an integer differs from the equal
    /// double, `-0.0` from `0.0`, and NaN equals NaN.
    static func identical(_ a: [String: FirestoreValue], _ b: [String: FirestoreValue]) -> Bool {
        guard a.count == b.count else { return false }
        for (key, value) in a {
            guard let other = b[key], identical(value, other) else { return false }
        }
        return true
    }

    private static func identical(_ a: FirestoreValue, _ b: FirestoreValue) -> Bool {
        switch (a, b) {
        case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
        case (.integer, .double), (.double, .integer): return false
        case (.geoPoint(let la, let lo), .geoPoint(let lb, let lob)):
            return la.bitPattern == lb.bitPattern && lo.bitPattern == lob.bitPattern
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { identical($0, $1) }
        case (.map(let x), .map(let y)): return identical(x, y)
        default: return a == b
        }
    }
}
