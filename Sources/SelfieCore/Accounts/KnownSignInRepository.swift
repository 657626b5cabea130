import Logging
import NIOCore
import PostgresNIO

/// The browsers and apps each account has signed in from, as a hash of the kind of browser or app
/// and the network (see `AccountService`'s sign-in notice).
public struct KnownSignInRepository: Sendable {
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.scopedLogger = ScopedLogger(logger)
    }

    /// Records a sign-in from `fingerprint`; true when the account has not used it before but
    /// has signed in before (its very first sign-in is no news).
    func recordIsNew(userID: Int64, fingerprint: [UInt8]) async throws -> Bool {
        let rows = try await client.query(
            """
            WITH prior AS (SELECT count(*)::int AS n FROM known_sign_ins WHERE user_id = \(userID)),
            seen AS (
                INSERT INTO known_sign_ins (user_id, fingerprint) VALUES (\(userID), \(ByteBuffer(bytes: fingerprint)))
                ON CONFLICT (user_id, fingerprint) DO UPDATE SET last_seen_at = now()
                RETURNING (xmax = 0) AS inserted
            )
            SELECT seen.inserted, prior.n FROM seen, prior
            """,
            logger: logger
        )
        for try await (inserted, prior) in rows.decode((Bool, Int).self) { return inserted && prior > 0 }
        return false
    }
}
