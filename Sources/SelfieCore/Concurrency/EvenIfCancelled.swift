import Synchronization

/// Runs work that must happen even when the task that needs it has been cancelled (a request cut
/// off at shutdown, a client gone): closing a file, removing what a failed upload wrote. It runs
/// in a task of its own, which does not inherit the cancellation, so the thread pool and the HTTP
/// client still do the work; `CleanUps` counts it so that the HTTP client is not shut down under it.
func evenIfCancelled<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
    CleanUps.begin()
    defer { CleanUps.end() }
    return try await Task { try await body() }.value
}

/// The clean-ups `evenIfCancelled` is running now, process-wide.
enum CleanUps {
    private static let running = Atomic<Int>(0)

    static var inFlight: Int { running.load(ordering: .acquiring) }
    static func begin() {
        running.add(1, ordering: .acquiringAndReleasing)
        tally?.begun.add(1, ordering: .releasing)
    }
    static func end() { running.subtract(1, ordering: .acquiringAndReleasing) }

    /// Counts the clean-ups begun by the work inside `CleanUps.$tally.withValue(…)` and the tasks it
    /// starts: `inFlight` is process-wide, so only this tells someone their own clean-up has begun.
    final class Tally: Sendable {
        let begun = Atomic<Int>(0)
    }
    @TaskLocal static var tally: Tally?

    /// Returns once no clean-up runs, or after `limit`; usable from a cancelled task.
    static func finish(within limit: Duration) async {
        await Task {
            let deadline = ContinuousClock.now + limit
            while inFlight > 0, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }.value
    }
}
