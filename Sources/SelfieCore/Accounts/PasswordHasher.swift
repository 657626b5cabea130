import Foundation
import HummingbirdBcrypt
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// bcrypt hashing and checking: one hash costs ~200 ms of CPU at cost 12 and must never run on an
/// event loop. It runs on a pool of its own, so a burst of sign-ins cannot starve file I/O, which
/// uses NIO's shared pool.
public struct PasswordHasher: Sendable {
    public let cost: UInt8

    public init(cost: UInt8) {
        precondition(cost >= 4 && cost <= 31, "bcrypt cost out of range")
        self.cost = cost
    }

    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await Self.pool.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    func verify(_ password: String, against hash: String) async throws -> Bool {
        try await Self.pool.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// Spends the same time as a real check, for sign-ins with an unknown email, so that response
    /// time does not tell whether an account exists.
    func verifyAgainstDecoy(_ password: String) async throws {
        let cost = self.cost
        _ = try await Self.pool.runIfActive { Bcrypt.verify(password, hash: Self.decoyHash(cost: cost)) }
    }

    /// One thread per core: bcrypt is pure CPU work.
    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: System.coreCount)
        pool.start()
        return pool
    }()

    /// A hash of nothing anyone knows, at the configured cost, made once (on the pool) per cost.
    private static let decoys = NIOLockedValueBox<[UInt8: String]>([:])
    private static func decoyHash(cost: UInt8) -> String {
        if let hash = decoys.withLockedValue({ $0[cost] }) { return hash }
        let hash = Bcrypt.hash(RandomToken.urlSafe(), cost: cost)
        decoys.withLockedValue { $0[cost] = hash }
        return hash
    }
}

/// What Selfie accepts as a password.
///
/// bcrypt reads only the first 72 bytes of its input. Rather than silently ignoring the rest
/// (or pre-hashing, which complicates every check), a longer password is refused.
public enum PasswordPolicy {
    public static let minimumCharacters = 8
    public static let maximumBytes = 72

    /// What is wrong with `password`, or nil when it is acceptable.
    public static func problem(with password: String) -> FieldProblem? {
        if password.containsControlCharacters { return .controlCharacters }
        if password.count < minimumCharacters { return .passwordTooShort(minCharacters: minimumCharacters) }
        if password.utf8.count > maximumBytes { return .passwordTooLong(maxBytes: maximumBytes) }
        return nil
    }
}
