import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Answers a GET or HEAD of a static file where its connection's bytes are read: on the event
/// loop, from memory, with no task and no trip through the router and its middleware. The
/// stylesheet and scripts every page links to cost Hummingbird's whole request path otherwise
/// (an async iterator, the middleware chain, a response writer): about 70 µs of CPU against a few
/// here (BENCHMARKS.md).
///
/// The answer is the one the router would give: `StaticAssets.answer`'s status, headers and body,
/// the `SecurityHeaders` with a request id of its own, a `RequestLogLine` and the `RequestMetrics`
/// under the route the router reports (`/assets/**`). What the router still answers:
/// - a path that is no file (the 404 page is the router's);
/// - a request sent while an earlier one on the same connection is still being answered by the
///   router (HTTP/1.1 pipelining): answering it first would swap the two answers. Such a request
///   goes on to the router, which answers it in turn through the same `StaticAssets.answer`.
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
        let date = HTTPDateHeader()

        init(_ assets: StaticAssets, everyAnswer: EveryAnswer, logger: Logger) {
            self.assets = assets
            self.everyAnswer = everyAnswer
            self.logger = logger
        }
    }

    private let settings: Settings
    /// Requests passed on to the router whose answers have not ended yet.
    private var passedOn = 0
    /// The request being read that is answered here, once its end has arrived (a GET's body, if
    /// any, means nothing and is dropped), as the router does.
    private var pending: Pending?

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
        switch unwrapInboundIn(data) {
        case .head(let request):
            if passedOn == 0, let pending = answerHere(request) {
                self.pending = pending
                return
            }
            passedOn += 1
        case .body:
            if pending != nil { return }
        case .end:
            if let pending {
                self.pending = nil
                write(pending, context: context)
                return
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { passedOn -= 1 }
        context.write(data, promise: promise)
    }

    /// The answer when `request` is a GET or HEAD of a file served here.
    private func answerHere(_ request: HTTPRequest) -> Pending? {
        guard request.method == .get || request.method == .head, let path = request.path else { return nil }
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
        headers[.date] = settings.date.now
        context.write(wrapOutboundOut(.head(HTTPResponse(status: answer.status, headerFields: headers))), promise: nil)
        if request.method != .head, let body = answer.body {
            context.write(wrapOutboundOut(.body(body)), promise: nil)
        }
        if request.headerFields[.connection] == "close" {
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
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
