import Logging
import ServiceLifecycle
import Synchronization

/// Whether this instance is on its way out: set on SIGTERM, read by `/readyz`.
public final class Draining: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public var isDraining: Bool { flag.load(ordering: .acquiring) }

    func begin() { flag.store(true, ordering: .releasing) }
}

/// The first thing a graceful shutdown does (it runs after the server in the service group, so it
/// is told first): `/readyz` turns 503, and for `grace` the server keeps serving so that a load
/// balancer notices and stops sending; then the group goes on to the server, which stops
/// accepting connections and lets in-flight requests finish.
struct DrainService: Service {
    let draining: Draining
    let grace: Duration
    let logger: Logger

    func run() async throws {
        // Returns when a graceful shutdown begins; throws if the task is cancelled instead.
        try await gracefulShutdown()
        draining.begin()
        logger.notice("shutting down: /readyz answers 503; the listener closes in \(grace)")
        try? await Task.sleep(for: grace)
    }
}
