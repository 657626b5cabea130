import NIOCore
import NIOPosix

/// An event loop as a task executor: a job enqueued here runs on the loop's thread.
///
/// The server runs each connection's requests on the loop that owns its socket (see
/// `ConnectionOnItsEventLoop`), and sets `current` for them, so that work a request starts in a
/// task of its own (a deadline's) stays on that thread too instead of crossing to Swift's pool.
public final class EventLoopTaskExecutor: TaskExecutor {
    public let eventLoop: any EventLoop

    /// The executor of the connection whose request is running, if it runs on one.
    @TaskLocal public static var current: EventLoopTaskExecutor?

    private init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }

    /// One executor per loop of the group the server runs on, made once.
    private static let executors: [ObjectIdentifier: EventLoopTaskExecutor] = Dictionary(
        uniqueKeysWithValues: MultiThreadedEventLoopGroup.singleton.makeIterator().map { (ObjectIdentifier($0), EventLoopTaskExecutor($0)) }
    )

    public static func of(_ eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        executors[ObjectIdentifier(eventLoop)] ?? EventLoopTaskExecutor(eventLoop)
    }
}
