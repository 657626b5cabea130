import Hummingbird

/// A rendered HTML page as a response.
struct HTML: ResponseGenerator {
    let body: String
    var status: HTTPResponse.Status = .ok

    func response(from request: Request, context: some RequestContext) -> Response {
        let buffer = ByteBuffer(string: body)
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentLength] = String(buffer.readableBytes)
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: buffer))
    }
}

extension Response {
    /// 303 See Other: the answer to a form POST, so a reload does not post again.
    static func seeOther(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .contentLength: "0"])
    }
}
