@testable import App
@testable import SelfieCore
import Logging
import PostgresNIO
import ServiceLifecycle
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

    @Test("a shared task that is overdue (instances restarted more often than its interval) runs soon after start-up, and one run recently waits for the rest of its interval")
    func overdueRunsSoon() async throws {
        try await withFreshDatabase { url in
            try await withDatabase(url) { client in
                try await client.query(
                    """
                    INSERT INTO periodic_task_runs (name, last_run_at)
                    VALUES ('overdue', now() - interval '1 day'), ('recent', now() - interval '10 seconds')
                    """
                )
                let overdue = Atomic<Int>(0)
                let recent = Atomic<Int>(0)
                let tasks = [
                    PeriodicTask(name: "overdue", interval: .seconds(120), logger: testLogger, sharedThrough: client) { overdue.add(1, ordering: .relaxed) },
                    PeriodicTask(name: "recent", interval: .seconds(120), logger: testLogger, sharedThrough: client) { recent.add(1, ordering: .relaxed) },
                ]
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for task in tasks { group.addTask { try await task.run() } }
                    try await waitUntil(timeout: .seconds(30)) { overdue.load(ordering: .relaxed) == 1 }
                    group.cancelAll()
                    try await group.waitForAll()
                }
                let recentRuns = recent.load(ordering: .relaxed)
                #expect(recentRuns == 0, "ran 10 s ago: its next turn is 110 s away")
            }
        }
    }

    @Test("race: an instance whose claim waited for another's (which stamped the row a moment after this claim's statement began) does not claim too: the stamp is not \"in the future\"")
    func claimWaitingForAnothersClaim() async throws {
        try await withFreshDatabase { url in
            try await withDatabase(url) { client in
                try await client.query("INSERT INTO periodic_task_runs (name, last_run_at) VALUES ('raced', now() - interval '1 day')")
                let task = PeriodicTask(name: "raced", interval: .seconds(3600), logger: testLogger, sharedThrough: client) {}
                let claimed = try await client.transaction(logger: testLogger) { other in
                    // The other instance's claim holds the row…
                    try await other.query("SELECT 1 FROM periodic_task_runs WHERE name = 'raced' FOR UPDATE", logger: testLogger)
                    let waiting = Task { try await task.claim() }
                    try await TestApp.untilSomeoneWaitsForALock(client)
                    // …and stamps it with a time later than the waiting statement's start.
                    try await other.query("UPDATE periodic_task_runs SET last_run_at = clock_timestamp() WHERE name = 'raced'", logger: testLogger)
                    return waiting
                }
                #expect(try await claimed.value == false, "it ran a moment ago, on the other instance")
            }
        }
    }

    @Test("a shared task whose last run is recorded in the future (the database's clock was ahead, then set back) runs after one interval, not once that time comes again")
    func lastRunInTheFuture() async throws {
        try await withFreshDatabase { url in
            try await withDatabase(url) { client in
                try await client.query("INSERT INTO periodic_task_runs (name, last_run_at) VALUES ('ahead', now() + interval '1 day')")
                let runs = Atomic<Int>(0)
                let task = PeriodicTask(name: "ahead", interval: .seconds(1), logger: testLogger, sharedThrough: client) { runs.add(1, ordering: .relaxed) }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await task.run() }
                    try await waitUntil(timeout: .seconds(30)) { runs.load(ordering: .relaxed) >= 1 }
                    group.cancelAll()
                    try await group.waitForAll()
                }
                let recorded = try await client.query("SELECT last_run_at <= now() FROM periodic_task_runs WHERE name = 'ahead'").collect()
                #expect(try recorded.first?.decode(Bool.self) == true, "the run is recorded at the database's time now")
            }
        }
    }

    @Test("a graceful shutdown stops a task's work under way (a long backfill) instead of waiting for it to end, and the task ends quietly: the services after it still stop in order")
    func shutdownStopsTheWork() async throws {
        let started = Atomic<Bool>(false)
        let stopped = Atomic<Bool>(false)
        let task = PeriodicTask(name: "long", interval: .milliseconds(100), logger: testLogger) {
            started.store(true, ordering: .relaxed)
            // Work that ends only when it is cancelled, and then throws, as the backfill's photo
            // loop does (`Task.checkCancellation()`).
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(20)) }
            stopped.store(true, ordering: .relaxed)
            try Task.checkCancellation()
        }
        let group = ServiceGroup(configuration: .init(services: [.init(service: task)], gracefulShutdownSignals: [], logger: testLogger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // A loaded machine (the whole suite at once) once took more than 15 s to get there.
            try await waitUntil(timeout: .seconds(90)) { started.load(ordering: .relaxed) }
            await group.triggerGracefulShutdown()
            tasks.addTask {
                // The work never ends unless it is cancelled: without the stop, this comes first.
                try await Task.sleep(for: .seconds(60))
                throw TestSetupError("the shutdown waited for the work")
            }
            _ = try await tasks.next()
            tasks.cancelAll()
        }
        let sawTheCancellation = stopped.load(ordering: .relaxed)
        #expect(sawTheCancellation, "the work saw the cancellation")
    }
}
