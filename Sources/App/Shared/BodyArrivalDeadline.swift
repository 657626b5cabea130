import HTTPTypes
import Hummingbird
import NIOCore

/// Every request body must arrive within a bound, however it is read. A client can otherwise
/// send a small form one byte every 59 seconds (each byte resets the connection's idle timeout)
/// and hold its connection and its task for hours.
///
/// - photos (`multipart/form-data`) and resumable uploads' bytes (`application/offset+octet-stream`):
///   `upload`, a backstop behind the upload handlers' own deadline (`UPLOAD_TIMEOUT_SECONDS`), which
///   comes first and keeps its own answer (a tus PATCH keeps what arrived);
/// - everything else (forms, the API's JSON, passkeys' answers): `small`, then a 408.
///
/// The bound is checked as each part arrives; a client that stops sending altogether meets the
/// connection's idle timeout instead. Requests without a body pass untouched.
struct BodyArrivalDeadlineMiddleware<Context: RequestContext>: RouterMiddleware {
    let small: Duration
    let upload: Duration

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.hasBody(request.headers) else { return try await next(request, context) }
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        let isUpload = contentType.hasPrefix("multipart/form-data") || contentType.hasPrefix("application/offset+octet-stream")
        var request = request
        request.body = RequestBody(asyncSequence: ArrivingBy(base: request.body, deadline: .now + (isUpload ? upload : small)))
        return try await next(request, context)
    }

    /// A body is announced by a length above zero or by chunked transfer coding (HTTP/1.1).
    static func hasBody(_ headers: HTTPFields) -> Bool {
        if headers[.transferEncoding] != nil { return true }
        guard let length = headers[.contentLength] else { return false }
        return length != "0"
    }
}

/// A request body whose parts must arrive by `deadline`: a part that comes later is refused with
/// a 408 (the catalogue's `error-body-timed-out`).
struct ArrivingBy: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let deadline: ContinuousClock.Instant

    struct AsyncIterator: AsyncIteratorProtocol, SendableMetatype {
        var base: RequestBody.AsyncIterator
        let deadline: ContinuousClock.Instant

        mutating func next() async throws -> ByteBuffer? {
            guard let part = try await base.next() else { return nil }
            guard ContinuousClock.now <= deadline else { throw Refusal(.requestTimeout, "error-body-timed-out") }
            return part
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), deadline: deadline)
    }
}
