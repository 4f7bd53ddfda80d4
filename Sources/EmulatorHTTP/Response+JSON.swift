import EmulatorCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension Response {
    /// A JSON response with `charset=utf-8`, as Google's APIs send.
    public static func json(_ value: JSONValue, status: Int = 200) -> Response {
        json(data: Data(value.serialized().utf8), status: status)
    }

    /// A JSON response with the text `value` writes.
    public static func json(writing value: some JSONWritable, status: Int = 200) -> Response {
        json(data: Data(value.serializedBytes()), status: status)
    }

    /// A JSON response from already encoded bytes.
    public static func json(data: Data, status: Int = 200) -> Response {
        Response(
            status: HTTPResponse.Status(code: status),
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }

    /// A plain-text or HTML response.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8")
        -> Response
    {
        Response(
            status: HTTPResponse.Status(code: status),
            headers: [.contentType: contentType],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }

    /// A page or script that must not be cached (`Cache-Control: no-store`): what the emulators' own pages
    /// and long-polling scripts answer.
    public static func uncached(_ text: String, contentType: String) -> Response {
        var response = Response.text(text, contentType: contentType)
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
