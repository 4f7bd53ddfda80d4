import NIOHTTP1

/// A request the client broke while its body was being read: the body ended before its declared length
/// (the client closed its side), bad chunked framing, an oversized trailer. Such a request is the client's
/// fault, a 400 like the other malformed requests NIO's decoder rejects, never a 500.
struct ClientFault {
    /// What the client is told.
    let message: String

    /// The fault `error` is, or `nil` if it is not a client's.
    init?(_ error: any Error) {
        guard let parserError = error as? HTTPParserError else { return nil }
        switch parserError {
        case .invalidEOFState:
            message = "The request body ended before the length it declared."
        case .invalidChunkSize, .invalidContentLength, .unexpectedContentLength:
            message = "The request body's framing is malformed (\(parserError))."
        case .headerOverflow:
            message = "The request's headers or trailers are too large."
        default:
            message = "Malformed HTTP request (\(parserError))."
        }
    }
}
