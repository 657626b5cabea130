import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix

/// Each connection's requests run on the event loop that reads and writes its socket, not on
/// Swift's global pool. Without this, every request crossed threads four times or more (the
/// socket's bytes to the pool, the database query to its connection's loop and back, the answer
/// back to the socket's loop), and a profile of `/healthz` showed the kernel's wake-ups and task
/// switches as the largest cost. Work that must not block a loop already leaves it (bcrypt and
/// the image worker on their own threads, files through NIOFileSystem's pool).
struct ConnectionOnItsEventLoop<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor.of(value.channel.eventLoop)) {
            await inner.handle(value: value, logger: logger)
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

/// An event loop as a task executor: a job enqueued here runs on the loop's thread.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    private init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }

    /// One executor per loop of the group the server runs on, made once.
    private static let executors: [ObjectIdentifier: EventLoopTaskExecutor] = Dictionary(
        uniqueKeysWithValues: MultiThreadedEventLoopGroup.singleton.makeIterator().map { (ObjectIdentifier($0), EventLoopTaskExecutor($0)) }
    )

    static func of(_ eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        executors[ObjectIdentifier(eventLoop)] ?? EventLoopTaskExecutor(eventLoop)
    }
}
