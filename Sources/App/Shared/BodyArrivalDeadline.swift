import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// Every request body must arrive within a bound once the server starts reading it, however it
/// is read. A client can otherwise send a small form one byte every 59 seconds (each byte resets
/// the connection's idle timeout) and hold its connection and its task for hours.
///
/// - a photo or a resumable upload's bytes (`multipart/form-data` or
///   `application/offset+octet-stream` larger than `smallBodyBytes`, or of no declared length):
///   `upload`, a backstop behind the upload handlers' own deadline (`UPLOAD_TIMEOUT_SECONDS`),
///   which comes first and keeps its own answer (a tus PATCH keeps what arrived);
/// - everything else (forms, the API's JSON, passkeys' answers, whatever their declared type):
///   `small`.
///
/// A part that arrives after the bound is answered 408 (`error-body-timed-out`). A read that
/// waits past the bound and a grace (a part that never comes, trailers trickling in) has its
/// connection closed. Requests without a body pass untouched.
struct BodyArrivalDeadlineMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let small: Duration
    let upload: Duration

    /// The largest body any form or JSON route reads (`CSRFMiddleware.maximumFormBytes`).
    static let smallBodyBytes = 64 * 1024

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.hasBody(request.headers) else { return try await next(request, context) }
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        let isUpload = (contentType.hasPrefix("multipart/form-data") || contentType.hasPrefix("application/offset+octet-stream"))
            && (declared.map { $0 > Self.smallBodyBytes } ?? true)
        let clock = BodyClock(limit: isUpload ? upload : small, channel: context.channel)
        // Once the handler is done, a body it did not read is `LingeringCloseHandler`'s.
        defer { clock.stop() }
        var request = request
        request.body = RequestBody(asyncSequence: ArrivingBy(base: request.body, clock: clock))
        return try await next(request, context)
    }

    /// A body is announced by a length above zero or by chunked transfer coding (HTTP/1.1).
    static func hasBody(_ headers: HTTPFields) -> Bool {
        if headers[.transferEncoding] != nil { return true }
        guard let length = headers[.contentLength] else { return false }
        return length != "0"
    }
}

/// When the server began reading a body, and the timer that closes the connection should a read
/// still wait `limit` plus a grace later.
final class BodyClock: Sendable {
    let limit: Duration
    private let channel: any Channel
    private let state = Mutex<(started: ContinuousClock.Instant?, timer: Scheduled<Void>?, stopped: Bool)>((nil, nil, false))

    init(limit: Duration, channel: any Channel) {
        self.limit = limit
        self.channel = channel
    }

    /// How long past `limit` a read may still wait before the connection is closed: a third of it,
    /// at least a second.
    var grace: Duration { max(limit / 3, .seconds(1)) }

    /// When reading began (now, the first time).
    func start() -> ContinuousClock.Instant {
        state.withLock { state in
            if let started = state.started { return started }
            let now = ContinuousClock.now
            state.started = now
            if !state.stopped {
                let channel = self.channel
                state.timer = channel.eventLoop.scheduleTask(in: TimeAmount(limit + grace)) { channel.close(promise: nil) }
            }
            return now
        }
    }

    /// The body has ended, or the handler is done with it.
    func stop() {
        state.withLock { state in
            state.stopped = true
            state.timer?.cancel()
            state.timer = nil
        }
    }
}

/// A request body whose parts must arrive within `clock.limit` of the first read: a part that
/// comes later is refused with a 408 (the catalogue's `error-body-timed-out`).
struct ArrivingBy: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let clock: BodyClock

    struct AsyncIterator: AsyncIteratorProtocol, SendableMetatype {
        var base: RequestBody.AsyncIterator
        let clock: BodyClock

        mutating func next() async throws -> ByteBuffer? {
            let started = clock.start()
            guard let part = try await base.next() else {
                clock.stop()
                return nil
            }
            guard ContinuousClock.now - started <= clock.limit else { throw Refusal(.requestTimeout, "error-body-timed-out") }
            return part
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), clock: clock)
    }
}
