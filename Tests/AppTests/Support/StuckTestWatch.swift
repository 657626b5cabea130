import Foundation
import Synchronization
import Testing

/// Names, on standard error, a test that has spent over three minutes in one phase of its
/// database's life (waiting for a slot, cloning, running, shutting its app down, dropping). A
/// full run once stopped making progress with four tests unfinished and every thread idle; with
/// this, such a hang is a line that says which test waits where.
final class StuckTestWatch: Sendable {
    @TaskLocal static var current: StuckTestWatch?

    private let test: String
    private let phase = Mutex<(name: String, since: ContinuousClock.Instant)>(("waiting for a database slot", .now))

    private init(test: String) {
        self.test = test
    }

    /// Runs `body` watched; `enter` (from anywhere inside it) names the phase it is in.
    static func watching<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        let watch = StuckTestWatch(test: Test.current?.displayName ?? Test.current?.name ?? "a test")
        let watcher = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(30))
                watch.reportIfStuck(after: .seconds(180))
            }
        }
        defer { watcher.cancel() }
        return try await $current.withValue(watch) { try await body() }
    }

    /// The phase the current test (if watched) is now in.
    static func enter(_ phase: String) {
        current?.phase.withLock { $0 = (phase, .now) }
    }

    private func reportIfStuck(after limit: Duration) {
        let (name, since) = phase.withLock { $0 }
        let waited = ContinuousClock.now - since
        guard waited > limit else { return }
        FileHandle.standardError.write(Data("stuck? test \"\(test)\" has been \(name) for \(waited)\n".utf8))
    }
}
