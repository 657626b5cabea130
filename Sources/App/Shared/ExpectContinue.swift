import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOHTTP1

/// `Expect: 100-continue` (RFC 9110 §10.1.1): a client that sends it waits for "100 Continue"
/// before it sends its body — curl does for any body over 1 MiB, and waits a whole second when
/// no 100 comes. Selfie sends the 100 when the request's body is first read (as Go's net/http
/// does), so a request refused from its head alone (no valid token, too large, over the quota)
/// is answered without its body ever being sent. After such an answer the connection is treated
/// as after any early refusal: a body the client sends anyway is read and discarded, within
/// `LingeringCloseHandler`'s bounds (curl closes the connection instead).
///
/// It sits before the HTTP/1 ↔ HTTP types codec, where a request's version is still known: an
/// HTTP/1.0 client gets no 1xx answer (RFC 9110 §15.2).
final class ExpectContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Sent down the pipeline when a request's body is first read (`ExpectContinueMiddleware`).
    struct BodyWanted: Sendable {}

    /// The version of the request being read, while it still waits for its 100.
    private var waiting: HTTPVersion?

    /// Whether `Expect` holds the 100-continue expectation (a comma-separated list, any case).
    static func expectsContinue(_ values: some Sequence<some StringProtocol>) -> Bool {
        values.contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "100-continue" }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            let atLeast11 = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
            let waits = atLeast11 && Self.expectsContinue(head.headers["expect"])
            waiting = waits ? head.version : nil
        case .body, .end:
            // Bytes of the body came without the 100 (or there is none): it is no longer needed.
            waiting = nil
        }
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is BodyWanted else {
            return context.triggerUserOutboundEvent(event, promise: promise)
        }
        if let version = waiting {
            waiting = nil
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .continue))), promise: nil)
        }
        promise?.succeed(())
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
