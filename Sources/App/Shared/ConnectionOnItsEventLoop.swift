import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import SelfieCore

/// Each connection's requests run on the event loop that reads and writes its socket, not on
/// Swift's global pool. Without this, every request crossed threads four times or more (the
/// socket's bytes to the pool, the database query to its connection's loop and back, the answer
/// back to the socket's loop), and a profile of `/healthz` showed the kernel's wake-ups and task
/// switches as the largest cost. Work that must not block a loop already leaves it (bcrypt and
/// the image worker on their own threads, files through NIOFileSystem's pool). A deadline's task
/// stays on the loop too (`EventLoopTaskExecutor.current`).
struct ConnectionOnItsEventLoop<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        let executor = EventLoopTaskExecutor.of(value.channel.eventLoop)
        await withTaskExecutorPreference(executor) {
            await EventLoopTaskExecutor.$current.withValue(executor) {
                await inner.handle(value: value, logger: logger)
            }
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 whose connections run their requests on their own event loops.
    static func http1OnEventLoops(configuration: HTTP1Channel.Configuration) -> HTTPServerBuilder {
        .init { responder in
            ConnectionOnItsEventLoop(inner: HTTP1Channel(responder: responder, configuration: configuration))
        }
    }
}
