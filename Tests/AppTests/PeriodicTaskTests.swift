@testable import App
@testable import SelfieCore
import Logging
import PostgresNIO
import Synchronization
import Testing

/// Background work shared by several instances on one database.
@Suite("Periodic tasks")
struct PeriodicTaskTests {
    @Test("two instances' timers of a shared task: it runs once per interval between them, not once per instance")
    func sharedTaskRunsOnce() async throws {
        try await withFreshDatabase { url in
            try await withDatabase(url) { client in
                let runs = Atomic<Int>(0)
                let instances = (0..<2).map { _ in
                    PeriodicTask(name: "test task", interval: .seconds(1), logger: testLogger, sharedThrough: client) {
                        runs.add(1, ordering: .relaxed)
                    }
                }
                let started = ContinuousClock.now
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for instance in instances { group.addTask { try await instance.run() } }
                    try await waitUntil(timeout: .seconds(60)) { runs.load(ordering: .relaxed) >= 3 }
                    group.cancelAll()
                    try await group.waitForAll()
                }
                // Unshared, two 1 s timers would run about twice a second; shared, at most once per
                // 0.9 s between them (however slow a loaded machine makes the timers).
                let elapsed = ContinuousClock.now - started
                let count = runs.load(ordering: .relaxed)
                let most = Int(Double(elapsed.components.seconds) / 0.9 + Double(elapsed.components.attoseconds) / 0.9e18) + 1
                #expect(count <= most, "\(count) runs in \(elapsed): more than one per interval")
                let rows = try await client.query("SELECT count(*)::int FROM periodic_task_runs WHERE name = 'test task'").collect()
                #expect(try rows.first?.decode(Int.self) == 1)
            }
        }
    }

    @Test("a task that is not shared runs on every tick")
    func unsharedTaskRunsEveryTime() async throws {
        let runs = Atomic<Int>(0)
        let task = PeriodicTask(name: "local", interval: .milliseconds(200), logger: testLogger) { runs.add(1, ordering: .relaxed) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await task.run() }
            try await waitUntil(timeout: .seconds(60)) { runs.load(ordering: .relaxed) >= 3 }
            group.cancelAll()
            try await group.waitForAll()
        }
    }
}
