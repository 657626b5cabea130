import NIOCore
import NIOHTTPTypes

/// Closes a connection after an answer that says `Connection: close` — a large request refused
/// before its body was read — the way nginx's lingering close does: the rest of the refused body
/// is still read (and discarded by the server) so that a client that writes its whole body
/// before it reads gets to read the answer; the connection closes as soon as that body has
/// arrived, or after `linger`, or after `budget` more bytes, whichever comes first.
final class LingeringCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let linger: TimeAmount
    let budget: Int
    private var closing = false
    private var answered = false
    private var requestEnded = false
    private var drained = 0
    private var timer: Scheduled<Void>?

    init(linger: TimeAmount = .seconds(10), budget: Int = 64 * 1024 * 1024) {
        self.linger = linger
        self.budget = budget
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            requestEnded = false
        case .body(let bytes):
            drained += answered ? bytes.readableBytes : 0
        case .end:
            requestEnded = true
        }
        context.fireChannelRead(data)
        if answered, requestEnded || drained > budget { close(context) }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            closing = head.headerFields[.connection]?.lowercased() == "close"
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end where closing:
            let loopBound = context.loopBound
            context.writeAndFlush(data).whenComplete { _ in self.answeredWithClose(loopBound.value) }
            promise?.succeed()
        case .end:
            context.write(data, promise: promise)
        }
    }

    private func answeredWithClose(_ context: ChannelHandlerContext) {
        answered = true
        if requestEnded { return close(context) }
        let loopBound = context.loopBound
        timer = context.eventLoop.scheduleTask(in: linger) { self.close(loopBound.value) }
    }

    private func close(_ context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }
}
