#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// rules.LatLng and the `latlng` namespace.
extension Stdlib {
    /// Methods of rules.LatLng.
    static let latLngMethods: [String: Method<RuleLatLng>] = [
        "latitude": Method { point, _ in .float(point.latitude) },
        "longitude": Method { point, _ in .float(point.longitude) },
        "distance": Method(1...1) { point, arguments throws(RuleError) in
            guard case .latlng(let other) = arguments[0] else { throw arguments.mismatch }
            return .float(point.distance(to: other))
        },
    ]

    /// `latlng.value(lat, lng)`: degrees, latitude in [-90, 90] and longitude in [-180, 180].
    static let latLngFunctions: [String: Function] = [
        "latlng.value": Function(2...2) { arguments throws(RuleError) in
            let (latitude, longitude) = (try arguments.number(0), try arguments.number(1))
            guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
                throw RuleError(.invalidArgument, "Invalid latlng: latitude must be in [-90, 90] and longitude in [-180, 180].")
            }
            return .latlng(RuleLatLng(latitude: latitude, longitude: longitude))
        }
    ]
}

extension RuleLatLng {
    /// The Earth's radius used for distances: that of Google's S2 geometry library
    /// (`S2LatLng.EARTH_RADIUS_METERS`), which production is assumed to use.
    static let earthRadiusMeters = 6_367_000.0

    /// The great-circle distance to `other` in meters (the haversine formula, as S2's `getDistance`).
    func distance(to other: RuleLatLng) -> Double {
        let radians = Double.pi / 180
        let (lat1, lat2) = (latitude * radians, other.latitude * radians)
        let deltaLatitude = sin(0.5 * (lat2 - lat1))
        let deltaLongitude = sin(0.5 * (other.longitude - longitude) * radians)
        let x = deltaLatitude * deltaLatitude + deltaLongitude * deltaLongitude * cos(lat1) * cos(lat2)
        return 2 * asin(min(1, x).squareRoot()) * Self.earthRadiusMeters
    }
}
