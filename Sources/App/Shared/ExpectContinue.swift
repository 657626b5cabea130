import Foundation
import Hummingbird
import HummingbirdCore
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// `Expect: 100-continue` (RFC 9110 §10.1.1): a client that sends it waits for "100 Continue"
/// before it sends its body — curl does for any body over 1 MiB, and waits a whole second when
/// no 100 comes. Selfie sends the 100 when the request's body is first read (as Go's net/http
/// does), so a request refused from its head alone (no valid token, too large) is answered
/// without its body ever being sent. After such an answer the connection is treated as after any
/// early refusal: a body the client sends anyway is read and discarded, within
/// `LingeringCloseHandler`'s bounds (curl closes the connection instead).
///
/// It sees only the requests the router answers (it sits after `StaticAssetsOnTheLoop`, which
/// answers files without a body and costs them no handler more). An HTTP/1.0 request's
/// expectation is gone before it gets here (`ExpectationIgnoredOverHTTP10`).
final class ExpectContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Sent down the pipeline when a request's body is first read (`ExpectContinueMiddleware`).
    struct BodyWanted: Sendable {}

    /// Requests whose head has been read, and requests whose answer has ended. Hummingbird answers
    /// a connection's requests in turn while their heads are read ahead (pipelining), so the one
    /// being answered is `answered + 1`.
    private var read = 0
    private var answered = 0
    /// Whether the final head of the request being answered has gone out: no 100 after it.
    private var answering = false
    /// The request (by `read`) that waits for its 100.
    private var waiting: Int?

    /// Whether `Expect` holds the 100-continue expectation (a comma-separated list, any case).
    static func expectsContinue(_ values: some Sequence<some StringProtocol>) -> Bool {
        values.contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "100-continue" }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            read += 1
            waiting = Self.expectsContinue(request.headerFields[values: .expect]) ? read : nil
        case .body, .end:
            // Bytes of the body came without the 100 (or there is none): it is no longer needed.
            waiting = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response) where response.status.kind != .informational: answering = true
        case .end:
            answering = false
            answered += 1
        default: break
        }
        context.write(data, promise: promise)
    }

    /// The 100, if the body asked for is that of the request that waits for it, and its answer has
    /// not begun: a body first read for an earlier request (whose own bytes came without waiting),
    /// or once its answer is streaming, sends none.
    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is BodyWanted else {
            return context.triggerUserOutboundEvent(event, promise: promise)
        }
        if waiting == answered + 1, !answering {
            waiting = nil
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        promise?.succeed(())
    }
}

/// An HTTP/1.0 request's `Expect` is dropped (RFC 9110 §10.1.1: such a server "MUST ignore that
/// expectation"; §15.2: no 1xx to an HTTP/1.0 client). It sits before the HTTP/1 ↔ HTTP types
/// codec, the last place that knows a request's version.
final class ExpectationIgnoredOverHTTP10: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(var head) = unwrapInboundIn(data), head.version.major == 1, head.version.minor == 0,
            head.headers.contains(name: "expect")
        {
            head.headers.remove(name: "expect")
            return context.fireChannelRead(wrapInboundOut(.head(head)))
        }
        context.fireChannelRead(data)
    }
}

/// Makes a request that expects 100-continue ask for it when its body is first read: by the
/// handler, a middleware or a multipart parser, wherever that happens.
struct ExpectContinueMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard ExpectContinueHandler.expectsContinue(request.headers[values: .expect]) else {
            return try await next(request, context)
        }
        var request = request
        request.body = RequestBody(asyncSequence: BodyAskingToContinue(body: request.body, channel: context.channel))
        return try await next(request, context)
    }
}

/// A request body that, on its first read, tells `ExpectContinueHandler` to send the 100.
private struct BodyAskingToContinue: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let body: RequestBody
    let channel: any Channel

    struct AsyncIterator: AsyncIteratorProtocol {
        var body: RequestBody.AsyncIterator
        let channel: any Channel
        var asked = false

        mutating func next() async throws -> ByteBuffer? {
            if !asked {
                asked = true
                channel.triggerUserOutboundEvent(ExpectContinueHandler.BodyWanted(), promise: nil)
            }
            return try await body.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(body: body.makeAsyncIterator(), channel: channel)
    }
}
