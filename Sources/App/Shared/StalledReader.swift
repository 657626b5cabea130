import NIOCore

/// Closes a connection whose client has stopped reading its answer: once the answer's bytes fill
/// the socket and NIO's buffer (the channel is not writable), the client has `timeout` to read
/// some of them. Hummingbird's idle timeout counts only what the client sends, so without this a
/// client that asks for a large file and never reads holds the connection, its task and the open
/// file for ever (a thousand of them use up the process's descriptors). A slow reader is not
/// stalled: each time it reads enough, the channel turns writable and the clock starts again.
final class StalledReaderHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stopTheClock()
        } else if timer == nil {
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
                self.timer = nil
                context.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopTheClock()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopTheClock()
    }

    private func stopTheClock() {
        timer?.cancel()
        timer = nil
    }
}
