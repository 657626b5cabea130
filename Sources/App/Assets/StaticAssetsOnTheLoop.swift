import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Answers a GET or HEAD of a static file where its connection's bytes are read: on the event
/// loop, from memory, with no task and no trip through the router and its middleware. Through the
/// router the stylesheet cost 55–60 µs of CPU per request, answered here 23–24 µs, most of it NIO
/// and the kernel (BENCHMARKS.md).
///
/// The answer is the one the router would give: `StaticAssets.answer`'s status, headers and body,
/// a request id and a Date of its own, a `RequestLogLine` and the `RequestMetrics` under the route
/// the router reports (`/assets/**`). What the router still answers:
/// - a path that is no file (the 404 page is the router's);
/// - a request sent while an earlier one on the same connection is still being answered by the
///   router (HTTP/1.1 pipelining): answering it first would swap the two answers. Such a request
///   goes on to the router, which answers it in turn through the same `StaticAssets.answer`;
/// - a request with a body (the router answers at once and `LingeringCloseHandler` bounds what
///   still arrives), and any request while the client is not reading its answers (the router's
///   async writer waits for it; answering here would pile the answers up in memory);
/// - everything after an error in the pipeline (a request the HTTP codec could not read: the
///   router answers it) and after a request asking `Connection: close` that went to the router.
///
/// It sits after Hummingbird's `HTTPConnectionStateHandler`, so that handler still sees every
/// request and answer: the idle timeout and a graceful shutdown's "close once the answers are
/// out" count these too.
final class StaticAssetsOnTheLoop: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What every connection's handler shares: made once when the server is built.
    struct Settings: Sendable {
        let assets: StaticAssets
        let everyAnswer: EveryAnswer
        let logger: Logger
        /// The route name the router reports for these requests (logs and metrics).
        let route = StaticAssets.pattern.description

        init(_ assets: StaticAssets, everyAnswer: EveryAnswer, logger: Logger) {
            self.assets = assets
            self.everyAnswer = everyAnswer
            self.logger = logger
        }
    }

    private let settings: Settings
    private var date = HTTPDateHeader()
    /// Requests passed on to the router whose answers have not ended yet.
    private var passedOn = 0
    /// The request being read that is answered here, once its end has arrived.
    private var pending: Pending?
    /// Set on an error in the pipeline, or once a request asking `Connection: close` has gone to
    /// the router: the rest of the connection is the router's.
    private var routerOnly = false
    /// Set once a request asking `Connection: close` is answered here: nothing more is read.
    private var closing = false
    /// Once the answer to `Connection: close` is out, the sending side is closed (as Hummingbird
    /// does) and the client closes its side; one that does not is closed when this fires, after
    /// `LingeringCloseHandler.defaultLinger`.
    private var lingerTimer: Scheduled<Void>?

    private struct Pending {
        let request: HTTPRequest
        let path: String
        let answer: StaticAssets.Answer
        let started: ContinuousClock.Instant
    }

    init(_ settings: Settings) {
        self.settings = settings
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if closing { return }
        switch unwrapInboundIn(data) {
        case .head(let request):
            if passedOn == 0, !routerOnly, context.channel.isWritable, let pending = answerHere(request) {
                self.pending = pending
                return
            }
            passedOn += 1
            if request.headerFields[.connection] == "close" { routerOnly = true }
        case .body:
            break
        case .end:
            if let pending {
                self.pending = nil
                write(pending, context: context)
                return
            }
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        routerOnly = true
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        lingerTimer?.cancel()
        lingerTimer = nil
        context.fireChannelInactive()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Only the router's answers come through here (this handler's own start past it). The one
        // answer with no request passed on, Hummingbird's 400 to an unreadable request, follows an
        // error, after which `routerOnly` holds and the count no longer decides anything.
        if case .end = unwrapOutboundIn(data) { passedOn -= 1 }
        context.write(data, promise: promise)
    }

    /// The answer when `request` is a GET or HEAD, without a body, of a file served here.
    private func answerHere(_ request: HTTPRequest) -> Pending? {
        guard request.method == .get || request.method == .head, let path = request.path,
            request.headerFields[.transferEncoding] == nil, (request.headerFields[.contentLength] ?? "0") == "0"
        else { return nil }
        let started = ContinuousClock.now
        let pathOnly = path.utf8.firstIndex(of: UInt8(ascii: "?")).map { path[..<$0] } ?? path[...]
        guard let answer = settings.assets.answer(path: pathOnly, ifNoneMatch: request.headerFields[.ifNoneMatch]) else {
            return nil
        }
        return Pending(request: request, path: path, answer: answer, started: started)
    }

    private func write(_ pending: Pending, context: ChannelHandlerContext) {
        let (request, answer) = (pending.request, pending.answer)
        let id = RequestID()
        // The fixed security headers are in the file's headers already (`StaticAssets`).
        var headers = answer.headers
        headers[.xRequestID] = id.description
        headers[.date] = date.now()
        context.write(wrapOutboundOut(.head(HTTPResponse(status: answer.status, headerFields: headers))), promise: nil)
        if request.method != .head, let body = answer.body {
            context.write(wrapOutboundOut(.body(body)), promise: nil)
        }
        if request.headerFields[.connection] == "close" {
            // As Hummingbird does: no more answers, the sending side closed once this one is out.
            closing = true
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                guard context.channel.isActive else { return }
                context.close(mode: .output, promise: nil)
                self.lingerTimer = context.eventLoop.assumeIsolated().scheduleTask(in: LingeringCloseHandler.defaultLinger) {
                    context.close(promise: nil)
                }
            }
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        settings.everyAnswer.metrics.route(settings.route, method: request.method, status: answer.status)
            .record(since: pending.started)
        settings.everyAnswer.log.write(
            to: settings.logger,
            requestID: id,
            method: request.method,
            uri: URI(pending.path),
            status: answer.status.code,
            route: settings.route,
            user: nil,
            since: pending.started
        )
    }
}
