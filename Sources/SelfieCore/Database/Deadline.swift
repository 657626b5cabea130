import Foundation
import NIOCore
import NIOPosix

/// How long a request may wait for the database before it is answered with a 503.
public let databaseWaitLimit: Duration = .seconds(3)

public struct DeadlineExceeded: Error {}

/// Runs `operation`, or throws `DeadlineExceeded` once `duration` has passed. Unlike a task group,
/// this returns at the deadline even if the operation ignores cancellation (a connection pool
/// waiting for an unreachable database does); the operation is cancelled and left to finish.
public func withDeadline<T: Sendable>(
    _ duration: Duration,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = FirstOutcome<T>()
    return try await withTaskCancellationHandler {
        try await firstOf(operation, into: outcome) { loop in
            // A timer on an event loop, not a sleeping task: a task per timer cost a scheduling
            // round trip of its own.
            let timer = loop.scheduleTask(in: TimeAmount(duration)) {
                outcome.resume(with: .failure(DeadlineExceeded()))
            }
            return { timer.cancel() }
        }
    } onCancel: {
        outcome.resume(with: .failure(CancellationError()))
    }
}

/// Runs `operation` in a task of its own and returns its result, unless something `watch` starts
/// resumes `outcome` first (with a failure); then the operation is cancelled and left to finish.
/// `watch` is given the event loop to run on and returns what stops it. Both the operation and
/// the watch run on the request's own event loop when it runs on one: no thread to wake for
/// the work, its database answer or the watch.
func firstOf<T: Sendable>(
    _ operation: @escaping @Sendable () async throws -> T,
    into outcome: FirstOutcome<T>,
    watchingOn loop: (any EventLoop)? = nil,
    _ watch: (any EventLoop) -> @Sendable () -> Void
) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        outcome.install(continuation)
        let executor = EventLoopTaskExecutor.current
        let work = Task(executorPreference: executor) {
            do { outcome.resume(with: .success(try await operation())) } catch { outcome.resume(with: .failure(error)) }
        }
        let stopWatching = watch(loop ?? executor?.eventLoop ?? MultiThreadedEventLoopGroup.singleton.any())
        outcome.onFinish {
            work.cancel()
            stopWatching()
        }
    }
}

/// Resumes a continuation with whichever result comes first; later ones are dropped.
final class FirstOutcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var early: Result<T, any Error>?
    private var finished = false
    private var cleanup: (@Sendable () -> Void)?

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        lock.lock()
        if let early {
            lock.unlock()
            continuation.resume(with: early)
        } else {
            self.continuation = continuation
            lock.unlock()
        }
    }

    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        lock.lock()
        if finished {
            lock.unlock()
            cleanup()
        } else {
            self.cleanup = cleanup
            lock.unlock()
        }
    }

    func resume(with result: Result<T, any Error>) {
        lock.lock()
        guard !finished else { return lock.unlock() }
        finished = true
        let continuation = self.continuation
        self.continuation = nil
        if continuation == nil { early = result }
        let cleanup = self.cleanup
        lock.unlock()
        continuation?.resume(with: result)
        cleanup?()
    }
}
