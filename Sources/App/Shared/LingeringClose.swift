import NIOCore
import NIOHTTPTypes

/// Bounds what a request may still send after it has been answered — the case of an upload
/// refused before its body was read (too large, no valid token, not an image). The rest of the
/// body is still read and discarded, as nginx's lingering close does, so that a client that
/// writes its whole body before it reads gets to read the answer at once, and the connection
/// stays usable. But if the body keeps coming for longer than `linger`, or for more than
/// `budget` bytes, the connection is closed: a client cannot hold it by never stopping.
final class LingeringCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let linger: TimeAmount
    let budget: Int
    private var requestInProgress = false
    /// Set once the answer is out while the request is still arriving.
    private var lingering = false
    private var drained = 0
    private var timer: Scheduled<Void>?

    /// How long a client may keep sending (or keep its side open) after its answer.
    static let defaultLinger = TimeAmount.seconds(10)

    init(linger: TimeAmount = defaultLinger, budget: Int = 64 * 1024 * 1024) {
        self.linger = linger
        self.budget = budget
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            requestInProgress = true
        case .body(let bytes):
            guard lingering else { break }
            drained += bytes.readableBytes
            if drained > budget { return close(context) }
        case .end:
            requestInProgress = false
            if lingering { stopLingering() }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), requestInProgress, !lingering {
            lingering = true
            drained = 0
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: linger) { self.close(context) }
        }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopLingering()
        context.fireChannelInactive()
    }

    private func stopLingering() {
        lingering = false
        timer?.cancel()
        timer = nil
    }

    private func close(_ context: ChannelHandlerContext) {
        stopLingering()
        context.close(promise: nil)
    }
}
