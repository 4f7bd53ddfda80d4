import EmulatorCore
import Testing

@testable import FirestoreEmulator

@Suite struct WriteTransformTests {
    typealias F = WriteFixture

    /// Applies one transform of `kind` on field `x` holding `current` (absent when `nil`); returns the new
    /// value of `x` and the transform result.
    func transform(_ current: FirestoreValue?, _ kind: FieldTransform.Kind) throws -> (FirestoreValue?, FirestoreValue?) {
        let fields: [String: FirestoreValue] = current.map { ["x": $0] } ?? [:]
        let write = F.write(.update(fields: [:]), mask: [], transforms: [FieldTransform(field: FieldPath(segments: ["x"]), kind: kind)])
        let (document, result) = try F.apply(write, to: F.document(fields))
        return (document?.fields["x"], result.transformResults.first)
    }

    /// Whether `a` and `b` are the same stored value (type, sign of zero and NaN included).
    func same(_ a: FirestoreValue?, _ b: FirestoreValue) -> Bool {
        a.map { Write.identical(["v": $0], ["v": b]) } ?? false
    }

    /// The commit time to the millisecond, as the official emulator writes server timestamps.
    @Test func serverTimestampIsTheCommitTime() throws {
        let (value, result) = try transform(.string("old"), .serverTimestamp)
        #expect(value == F.commit.wholeMilliseconds.value)
        #expect(result == .timestamp(seconds: F.commit.seconds, nanos: F.commit.nanos - F.commit.nanos % 1_000_000))
    }

    @Test func incrementKeepsIntegersAndSaturates() throws {
        #expect(try transform(.integer(2), .increment(.integer(3))).0 == .integer(5))
        #expect(try transform(.integer(.max - 1), .increment(.integer(5))).0 == .integer(.max))
        #expect(try transform(.integer(.min + 1), .increment(.integer(-5))).0 == .integer(.min))
        let (value, result) = try transform(.integer(-3), .increment(.integer(-4)))
        #expect(same(value, .integer(-7)))
        #expect(same(result, .integer(-7)))
    }

    @Test func incrementWithADoubleIsADouble() throws {
        #expect(same(try transform(.integer(1), .increment(.double(0.5))).0, .double(1.5)))
        #expect(same(try transform(.double(1.5), .increment(.integer(2))).0, .double(3.5)))
        #expect(same(try transform(.integer(1), .increment(.double(1))).0, .double(2)))
        #expect(try transform(.double(.nan), .increment(.integer(1))).0?.isNaN == true)
        #expect(same(try transform(.double(.infinity), .increment(.integer(1))).0, .double(.infinity)))
    }

    @Test func incrementOfAMissingOrNonNumericFieldIsTheOperand() throws {
        #expect(same(try transform(nil, .increment(.integer(4))).0, .integer(4)))
        #expect(same(try transform(.string("7"), .increment(.double(-0.0))).0, .double(-0.0)))
        #expect(same(try transform(.null, .increment(.double(2.5))).1, .double(2.5)))
    }

    @Test func maximumTakesTheLargerOperandsType() throws {
        #expect(same(try transform(.integer(3), .maximum(.double(4.5))).0, .double(4.5)))
        #expect(same(try transform(.double(4.5), .maximum(.integer(3))).0, .double(4.5)))
        #expect(same(try transform(.integer(3), .maximum(.integer(9))).1, .integer(9)))
        // Equivalent values leave the field as it is, zeros included.
        #expect(same(try transform(.integer(3), .maximum(.double(3))).0, .integer(3)))
        #expect(same(try transform(.double(-0.0), .maximum(.integer(0))).0, .double(-0.0)))
        #expect(same(try transform(.double(0.0), .maximum(.double(-0.0))).0, .double(0.0)))
    }

    @Test func minimumTakesTheSmallerOperandsType() throws {
        #expect(same(try transform(.double(2.5), .minimum(.integer(1))).0, .integer(1)))
        #expect(same(try transform(.integer(1), .minimum(.double(2.5))).0, .integer(1)))
        #expect(same(try transform(.double(3), .minimum(.integer(3))).0, .double(3)))
        #expect(same(try transform(.integer(0), .minimum(.double(-0.0))).1, .integer(0)))
    }

    @Test func maximumAndMinimumWithNaNAreNaN() throws {
        #expect(try transform(.integer(5), .maximum(.double(.nan))).0?.isNaN == true)
        #expect(try transform(.integer(5), .minimum(.double(.nan))).0?.isNaN == true)
        #expect(try transform(.double(.nan), .maximum(.integer(5))).0?.isNaN == true)
        #expect(try transform(.double(.nan), .minimum(.double(-.infinity))).1?.isNaN == true)
    }

    @Test func maximumAndMinimumOfAMissingOrNonNumericFieldAreTheOperand() throws {
        #expect(same(try transform(nil, .maximum(.integer(-2))).0, .integer(-2)))
        #expect(same(try transform(.string("z"), .minimum(.double(7))).0, .double(7)))
        #expect(same(try transform(.timestamp(seconds: 1, nanos: 0), .maximum(.integer(0))).0, .integer(0)))
    }

    @Test func appendMissingElementsAddsEachNewValueOnce() throws {
        let current: FirestoreValue = .array([.integer(1), .string("a"), .double(.nan)])
        let (value, result) = try transform(
            current,
            .appendMissingElements([.double(1.0), .string("b"), .double(.nan), .string("b"), .null, .integer(2), .double(2)]))
        #expect(same(value, .array([.integer(1), .string("a"), .double(.nan), .string("b"), .null, .integer(2)])))
        #expect(result == .null)
    }

    @Test func appendMissingElementsToANonArrayStartsFromEmpty() throws {
        #expect(try transform(.map(["k": .integer(1)]), .appendMissingElements([.integer(1)])).0 == .array([.integer(1)]))
        #expect(try transform(nil, .appendMissingElements([])).0 == .array([]))
    }

    @Test func removeAllFromArrayRemovesEveryEquivalentElement() throws {
        let current: FirestoreValue = .array([
            .integer(1), .double(1.0), .string("a"), .integer(2), .double(.nan), .null, .map(["k": .integer(1)]), .integer(1),
        ])
        let (value, result) = try transform(
            current, .removeAllFromArray([.double(1), .double(.nan), .null, .map(["k": .double(1)])]))
        #expect(same(value, .array([.string("a"), .integer(2)])))
        #expect(result == .null)
        #expect(try transform(.string("x"), .removeAllFromArray([.string("x")])).0 == .array([]))
    }

    @Test func transformsRunInOrderAfterTheUpdate() throws {
        let write = F.write(
            .update(fields: ["a": .integer(10), "m": .integer(1)]), mask: ["a", "m"],
            transforms: [
                FieldTransform(field: FieldPath(segments: ["a"]), kind: .increment(.integer(1))),
                FieldTransform(field: FieldPath(segments: ["m", "t"]), kind: .serverTimestamp),
                FieldTransform(field: FieldPath(segments: ["list"]), kind: .appendMissingElements([.integer(1)])),
                FieldTransform(field: FieldPath(segments: ["a", "b"]), kind: .maximum(.integer(3))),
            ])
        let (document, result) = try F.apply(write, to: F.document(["a": .integer(0), "keep": .boolean(true)]))
        #expect(
            document?.fields == [
                "a": .map(["b": .integer(3)]), "m": .map(["t": F.commit.wholeMilliseconds.value]), "list": .array([.integer(1)]),
                "keep": .boolean(true),
            ])
        #expect(result.transformResults == [.integer(11), F.commit.wholeMilliseconds.value, .null, .integer(3)])
    }

    @Test func numericTransformsNeedANumber() {
        for kind: FieldTransform.Kind in [.increment(.string("1")), .maximum(.null), .minimum(.array([]))] {
            let error = #expect(throws: FirestoreError.self) { try transform(.integer(1), kind) }
            #expect(error?.status.rawValue == "INVALID_ARGUMENT")
        }
    }

    @Test func aFieldTakesAtMostOneTransform() {
        let write = F.write(
            .update(fields: [:]), mask: [],
            transforms: [
                FieldTransform(field: FieldPath(segments: ["a"]), kind: .increment(.integer(1))),
                FieldTransform(field: FieldPath(segments: ["a"]), kind: .serverTimestamp),
            ])
        let error = #expect(throws: FirestoreError.self) { try F.apply(write, to: nil) }
        #expect(error?.message == "Cannot have more than one transform on the same field: a.")
    }

    @Test func reservedFieldsCannotBeTransformed() {
        for field in [FieldPath.documentName, FieldPath(segments: ["a", "__x__"])] {
            let write = F.write(.update(fields: [:]), transforms: [FieldTransform(field: field, kind: .serverTimestamp)])
            let error = #expect(throws: FirestoreError.self) { try F.apply(write, to: nil) }
            #expect(error?.message == "Invalid property path \"\(field)\".")
        }
    }

    @Test func arrayUnionCannotNestArrays() {
        let error = #expect(throws: FirestoreError.self) { try transform(nil, .appendMissingElements([.array([.integer(1)])])) }
        #expect(error?.message == "Property array contains an invalid nested entity.")
    }
}
