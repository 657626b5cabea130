import Synchronization

/// `permits` to share; a holder takes one or several (a heavier job), and waiters are served in
/// order, so a heavy job is never overtaken forever by light ones. A waiter whose task is
/// cancelled leaves the queue and throws `CancellationError`.
final class AsyncSemaphore: Sendable {
    private struct Waiter {
        let id: UInt64
        let weight: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var available: Int
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0

        /// Takes `weight` permits if they are free and nobody waits before.
        mutating func take(_ weight: Int) -> Bool {
            guard waiters.isEmpty, available >= weight else { return false }
            available -= weight
            return true
        }
    }

    let permits: Int
    private let state: Mutex<State>

    init(permits: Int) {
        precondition(permits > 0)
        self.permits = permits
        state = Mutex(State(available: permits))
    }

    /// Runs `body` holding `weight` permits (at most all of them).
    func withPermits<T>(_ weight: Int = 1, _ body: () async throws -> T) async throws -> T {
        let weight = min(max(weight, 1), permits)
        try await acquire(weight)
        defer { release(weight) }
        return try await body()
    }

    private func acquire(_ weight: Int) async throws {
        let id = state.withLock { state -> UInt64? in
            if state.take(weight) { return nil }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Checked again under the lock: permits released since the first look must not be
                // missed (the waiter would wait for a release that already happened).
                enum Next { case proceed, cancelled, wait }
                let next = state.withLock { state -> Next in
                    if Task.isCancelled { return .cancelled }
                    if state.take(weight) { return .proceed }
                    state.waiters.append(Waiter(id: id, weight: weight, continuation: continuation))
                    return .wait
                }
                switch next {
                case .proceed: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                let waiter = state.waiters.remove(at: index)
                return waiter
            }
            waiter?.continuation.resume(throwing: CancellationError())
            // The queue may now start with waiters that fit.
            if waiter != nil { resumeWaitersThatFit() }
        }
    }

    private func release(_ weight: Int) {
        state.withLock { $0.available += weight }
        resumeWaitersThatFit()
    }

    /// Hands free permits to the waiters at the head of the queue, in order, while they fit.
    private func resumeWaitersThatFit() {
        let ready = state.withLock { state -> [Waiter] in
            var ready: [Waiter] = []
            while let first = state.waiters.first, first.weight <= state.available {
                state.available -= first.weight
                ready.append(state.waiters.removeFirst())
            }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }
}
