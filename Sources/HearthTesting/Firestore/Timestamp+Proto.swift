import SwiftProtobuf

extension Timestamp {
    /// A timestamp read from the wire.
    init(_ proto: Google_Protobuf_Timestamp) {
        self.init(seconds: proto.seconds, nanoseconds: proto.nanos)
    }
}
