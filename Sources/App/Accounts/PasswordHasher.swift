import Foundation
import HummingbirdBcrypt
import NIOPosix

/// bcrypt hashing and checking on NIO's thread pool: one hash costs ~200 ms of CPU at cost 12
/// and must never run on an event loop.
public struct PasswordHasher: Sendable {
    public let cost: UInt8

    public init(cost: UInt8) {
        precondition(cost >= 4 && cost <= 31, "bcrypt cost out of range")
        self.cost = cost
    }

    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    func verify(_ password: String, against hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// Spends the same time as a real check, for sign-ins with an unknown email, so that response
    /// time does not tell whether an account exists.
    func verifyAgainstDecoy(_ password: String) async throws {
        _ = try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: Self.decoyHash) }
    }

    /// A hash of nothing anyone knows, made once, lazily, on the thread pool (first decoy check).
    private static let decoyHash = Bcrypt.hash(RandomToken.urlSafe(), cost: 12)
}

/// What Selfie accepts as a password.
///
/// bcrypt reads only the first 72 bytes of its input. Rather than silently ignoring the rest
/// (or pre-hashing, which complicates every check), a longer password is refused with a message.
public enum PasswordPolicy {
    public static let minimumCharacters = 8
    public static let maximumBytes = 72

    /// A message for the person choosing `password`, or nil when it is acceptable.
    public static func problem(with password: String) -> String? {
        if password.count < minimumCharacters {
            return "Use at least \(minimumCharacters) characters."
        }
        if password.utf8.count > maximumBytes {
            return "Use at most \(maximumBytes) bytes (about \(maximumBytes) letters; fewer with accents or emoji)."
        }
        return nil
    }
}
