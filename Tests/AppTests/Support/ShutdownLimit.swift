import Foundation
import Synchronization

/// A test app's graceful shutdown, bounded as the server's own is (`maximumGracefulShutdownDuration`
/// in `run`, then cancellation): Hummingbird's test harness runs the app in a service group with no
/// limit, and one shutdown that never ended (seen under a full run's load, after the test that cuts
/// the network to PostgreSQL) held its database slot, and with it the whole run, for ever. Past
/// `limit` the app is cancelled, as in production, and the line on standard error says so; the
/// test's own checks were made before its shutdown began.
enum ShutdownLimit {
    static let limit: Duration = .seconds(60)

    /// Runs `app`, which calls `finished` with the body's result when its body has ended (its
    /// shutdown begins then).
    static func bounding<T: Sendable>(
        _ app: @escaping @Sendable (_ finished: @escaping @Sendable (T) -> Void) async throws -> T
    ) async throws -> T {
        let state = State<T>()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await app { state.finish($0) } }
            group.addTask {
                while true {
                    try await Task.sleep(for: .seconds(1))
                    if let since = state.finishedAt, ContinuousClock.now - since > limit { return nil }
                }
            }
            guard let first = try await group.next(), let value = first else {
                // The limit passed: cancel the app, and wait for it to end.
                FileHandle.standardError.write(Data("a test app's shutdown took over \(limit): cancelled, as the server's own would be\n".utf8))
                group.cancelAll()
                while let next = try? await group.next() {
                    if let value = next { return value }
                }
                guard let value = state.result else { throw CancellationError() }
                return value
            }
            group.cancelAll()
            return value
        }
    }

    private final class State<T: Sendable>: Sendable {
        private let finished = Mutex<(result: T?, at: ContinuousClock.Instant?)>((nil, nil))

        func finish(_ result: T) { finished.withLock { $0 = (result, .now) } }
        var finishedAt: ContinuousClock.Instant? { finished.withLock { $0.at } }
        var result: T? { finished.withLock { $0.result } }
    }
}
