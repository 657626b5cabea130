import Synchronization

/// Caps the uploads in progress in this process, overall and per user: each holds a connection,
/// a blob writer and (for S3) up to one part in memory, so a burst or a slow-loris of uploads
/// must be refused early rather than allowed to exhaust memory.
final class UploadSlots: Sendable {
    let total: Int
    let perUser: Int
    private let state = Mutex(State())

    private struct State {
        var total = 0
        var byUser: [Int64: Int] = [:]
    }

    init(total: Int, perUser: Int) {
        self.total = total
        self.perUser = perUser
    }

    /// Runs `body` holding one slot for `userID`; throws `PhotoError.tooManyUploadsInProgress`
    /// when none is free.
    func withSlot<T>(for userID: Int64, _ body: () async throws -> T) async throws -> T {
        try acquire(userID)
        defer { release(userID) }
        return try await body()
    }

    private func acquire(_ userID: Int64) throws {
        try state.withLock { state in
            let mine = state.byUser[userID, default: 0]
            guard state.total < total, mine < perUser else { throw PhotoError.tooManyUploadsInProgress }
            state.total += 1
            state.byUser[userID] = mine + 1
        }
    }

    private func release(_ userID: Int64) {
        state.withLock { state in
            state.total -= 1
            let mine = state.byUser[userID, default: 1] - 1
            state.byUser[userID] = mine > 0 ? mine : nil
        }
    }
}
