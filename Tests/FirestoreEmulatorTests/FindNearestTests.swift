import EmulatorCore
import Foundation
import Testing

@testable import FirestoreEmulator

/// Vector search in process: distances to the official emulator's last bit, ranking, thresholds, result
/// fields and validation. The whole recorded corpus runs in conformance/differential/test_vector_search.py.
@Suite struct FindNearestTests {
    typealias F = QueryFixture

    static func vector(_ components: [Double]) -> FirestoreValue {
        .map(["__type__": .string("__vector__"), "value": .array(components.map(FirestoreValue.double))])
    }

    /// The ids and distances (in field `d`) a search over documents with vectors `v` returns.
    func search(
        _ measure: String, _ query: [Double], over vectors: [String: [Double]], limit: Int = 10, extra: String = ""
    ) throws -> [(String, Double)] {
        let components = query.map { "{\"doubleValue\": \($0)}" }.joined(separator: ",")
        let parsed = try F.query(json: """
            {"from": [{"collectionId": "c"}], "findNearest": {"vectorField": {"fieldPath": "v"},
             "queryVector": {"mapValue": {"fields": {"__type__": {"stringValue": "__vector__"},
                                                     "value": {"arrayValue": {"values": [\(components)]}}}}},
             "distanceMeasure": "\(measure)", "limit": \(limit), "distanceResultField": "d"\(extra)}}
            """)
        let documents = vectors.map { F.document("c/\($0.key)", ["v": Self.vector($0.value)]) }
        return parsed.run(over: documents, in: F.database, candidatesInOrder: false).map { document in
            guard case .double(let distance)? = document.fields["d"] else { return (document.path.segments.last!, .nan) }
            return (document.path.segments.last!, distance)
        }
    }

    @Test func euclideanSumsWithFusedMultiplyAdds() throws {
        // 0.41924336607750873 is the official emulator's figure; summing rounded squares gives ...088.
        let results = try search("EUCLIDEAN", [1, 1], over: ["a": [0.881, 0.598]])
        #expect(results.map(\.1) == [0.41924336607750873])
    }

    @Test func cosineOfEqualDirectionsIsExactlyZero() throws {
        let results = try search("COSINE", [2, 2], over: ["a": [1, 1], "b": [1, 0]])
        #expect(results.map(\.0) == ["a", "b"])
        #expect(results[0].1 == 0)
    }

    @Test func dotProductRanksLargestFirstAndNaNAboveEverything() throws {
        let results = try search("DOT_PRODUCT", [0, 1], over: ["inf": [.infinity, 0], "a": [0, 2], "b": [0, 1]])
        #expect(results.map(\.0) == ["inf", "a", "b"])
        #expect(results[0].1.isNaN)
        let euclidean = try search("COSINE", [1, 0], over: ["zero": [0, 0], "a": [1, 0]])
        #expect(euclidean.map(\.0) == ["a", "zero"], "NaN is last when the smallest ranks first")
    }

    @Test func otherDimensionsAndLimitsAndThresholds() throws {
        let vectors: [String: [Double]] = ["a": [1, 0], "b": [0, 1], "c": [3, 4], "wide": [1, 0, 0]]
        #expect(try search("EUCLIDEAN", [1, 0], over: vectors, limit: 2).map(\.0) == ["a", "b"])
        #expect(try search("EUCLIDEAN", [1, 0], over: vectors, extra: ", \"distanceThreshold\": 1.5").map(\.0) == ["a", "b"])
        #expect(try search("DOT_PRODUCT", [1, 0], over: vectors, extra: ", \"distanceThreshold\": 1").map(\.0) == ["c", "a"])
        #expect(try search("EUCLIDEAN", [1, 0, 0], over: vectors).map(\.0) == ["wide"])
    }

    @Test func invalidSearchesFailWithTheOfficialMessages() {
        func message(_ findNearest: String, _ rest: String = "") -> String? {
            do {
                _ = try F.query(json: "{\"from\": [{\"collectionId\": \"c\"}], \"findNearest\": \(findNearest)\(rest)}")
                return nil
            } catch {
                return (error as? FirestoreError)?.message
            }
        }
        let vector = "{\"mapValue\": {\"fields\": {\"__type__\": {\"stringValue\": \"__vector__\"}, \"value\": {\"arrayValue\": {\"values\": [{\"doubleValue\": 1}]}}}}}"
        let valid = "{\"vectorField\": {\"fieldPath\": \"v\"}, \"queryVector\": \(vector), \"distanceMeasure\": \"COSINE\", \"limit\": 3}"
        #expect(message(valid) == nil)
        #expect(message(valid.replacingOccurrences(of: "\"limit\": 3", with: "\"limit\": 1001"))
            == "FindNearest.limit must be a positive integer of no more than 1000")
        #expect(message(valid.replacingOccurrences(of: "\"COSINE\"", with: "\"DISTANCE_MEASURE_UNSPECIFIED\""))
            == "Unknown Distance Measure.")
        #expect(message(valid.replacingOccurrences(of: vector, with: "{\"doubleValue\": 1}")) == "Query Value must be of type vector.")
        #expect(message(valid, ", \"limit\": 2") == "A query limit cannot be used with FindNearest")
        #expect(message(valid, ", \"offset\": 1") == "A query offset cannot be used with FindNearest")
        #expect(message(valid.replacingOccurrences(of: "\"fieldPath\": \"v\"", with: "\"fieldPath\": \"\""))
            == "Invalid empty property path string.")
    }

    @Test func storedVectorsAreCheckedAsTheOfficialEmulatorChecksThem() {
        func message(_ value: FirestoreValue) -> String? {
            do {
                _ = try DocumentLimits.storageSize(of: F.document("c/d", ["v": value]))
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message(Self.vector([1, 2])) == nil)
        #expect(message(Self.vector([1, .nan])) == "Vector cannot contain NaN values.")
        #expect(message(Self.vector([])) == "Cannot have a zero length vector.")
        #expect(message(.map(["__type__": .string("__vector__"), "value": .array([.integer(1)])]))
            == "Vector must only contain values of type 'double'")
        #expect(message(.array([Self.vector([1])])) == "Cannot convert a vector value in an array value.")
        #expect(message(.array([.map(["inner": Self.vector([1])])])) == nil)
    }
}
