import Hummingbird
import NIOCore

/// A large request refused before its body was read — an upload over the limit, without a valid
/// token, of the wrong type — is answered at once with `Connection: close`; `LingeringCloseHandler`
/// then closes the connection once the rest of the body has arrived (or a little later at most).
/// A client that writes its whole body before it reads sees the refusal in milliseconds, and a
/// client that never stops sending cannot hold the connection.
struct UnreadBodyMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = try await next(request, context)
        guard response.status.code >= 400, Self.hasLargeBody(request, collectedUpTo: context.maxUploadSize) else {
            return response
        }
        response.headers[.connection] = "close"
        return response
    }

    /// Whether the request declares a body larger than handlers ever collect (a streamed upload),
    /// or one of unknown length.
    static func hasLargeBody(_ request: Request, collectedUpTo limit: Int) -> Bool {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }) { return length > limit }
        return request.headers[.transferEncoding]?.lowercased().contains("chunked") == true
    }
}
