import Crypto
import Foundation
import Logging
import PostgresNIO

/// The counts behind lockout and rate limits, in PostgreSQL so every instance agrees: failed
/// sign-ins per account (`sign_in_failures`) and attempts per action and client per window
/// (`rate_limit_counters`).
public struct ProtectionCounterRepository: Sendable {
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    /// The request's logger while serving one (its id on every line), else the one given at start.
    var logger: Logger { scopedLogger.current }

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.scopedLogger = ScopedLogger(logger)
    }

    /// Counts a failure for the account under a per-account lock, unless it already has
    /// `threshold` in the last `window` seconds: then the seconds until the oldest ages out. The
    /// key is made by PostgreSQL's lower(btrim()), as the account lookup compares emails.
    func claimFailure(account email: String, window: Int, threshold: Int) async throws -> Int? {
        let email = Self.failureKey(email)
        let logger = self.logger
        return try await client.transaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(lower(btrim(\(email)))))", logger: logger)
            let rows = try await connection.query(
                """
                SELECT count(*)::int, coalesce(extract(epoch FROM min(occurred_at) + make_interval(secs => \(window)) - now()), 0)::int
                FROM sign_in_failures
                WHERE email_key = lower(btrim(\(email))) AND occurred_at > now() - make_interval(secs => \(window))
                """,
                logger: logger
            )
            for try await (failures, secondsLeft) in rows.decode((Int, Int).self) where failures >= threshold {
                return secondsLeft
            }
            try await connection.query("INSERT INTO sign_in_failures (email_key) VALUES (lower(btrim(\(email))))", logger: logger)
            return nil
        }
    }

    func removeNewestFailure(account email: String) async throws {
        let email = Self.failureKey(email)
        try await client.query(
            """
            DELETE FROM sign_in_failures WHERE ctid = (
              SELECT ctid FROM sign_in_failures WHERE email_key = lower(btrim(\(email))) ORDER BY occurred_at DESC LIMIT 1
            )
            """,
            logger: logger
        )
    }

    func clearFailures(account email: String) async throws {
        let email = Self.failureKey(email)
        try await client.query("DELETE FROM sign_in_failures WHERE email_key = lower(btrim(\(email)))", logger: logger)
    }

    /// The longest account key stored as typed: longer than any address or username an account
    /// can have. A longer one (someone typed 4,000 characters) is stored as its digest: the
    /// index on the key takes at most 2,704 bytes a row.
    static let longestStoredKey = 320

    /// `email` as the failures are counted under: itself, or the digest of a key too long to index.
    static func failureKey(_ email: String) -> String {
        guard email.utf8.count > longestStoredKey else { return email }
        let folded = email.trimmingCharacters(in: .whitespaces).lowercased()
        return "\tlong login " + SHA256.hash(data: Data(folded.utf8)).hexString
    }

    /// One more hit for `action` from `address` in the current window of `window` seconds, unless
    /// it is over `limit` already: the hits so far and the seconds left in the window. A hit over
    /// the limit is not written (a flood from one address would otherwise queue on that row's lock
    /// and write the log once a request, taking the pool's connections from everyone else): the
    /// count stays at `limit + 1`. Two hits at the same moment may both pass the look; the limit
    /// is then passed by one more, as a count it is exact from the next.
    func count(_ action: String, client address: String, window: Int, limit: Int) async throws -> (hits: Int, secondsLeft: Int) {
        let rows = try await client.query(
            """
            WITH slot AS (
                SELECT to_timestamp(floor(extract(epoch FROM now()) / \(window)) * \(window)) AS start
            ), so_far AS (
                SELECT c.hits FROM rate_limit_counters c, slot
                WHERE c.action = \(action) AND c.client = \(address) AND c.window_start = slot.start
            ), hit AS (
                INSERT INTO rate_limit_counters (action, client, window_start, hits)
                SELECT \(action), \(address), slot.start, 1 FROM slot
                WHERE coalesce((SELECT hits FROM so_far), 0) <= \(limit)
                ON CONFLICT (action, client, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1
                RETURNING hits
            )
            SELECT coalesce((SELECT hits FROM hit), (SELECT hits FROM so_far), 0),
                (extract(epoch FROM slot.start) + \(window) - extract(epoch FROM now()))::int
            FROM slot
            """,
            logger: logger
        )
        for try await (hits, secondsLeft) in rows.decode((Int, Int).self) { return (hits, secondsLeft) }
        return (0, window)
    }

    func deleteExpired() async throws {
        try await client.query("DELETE FROM rate_limit_counters WHERE window_start < now() - interval '2 days'", logger: logger)
        try await client.query("DELETE FROM sign_in_failures WHERE occurred_at < now() - interval '1 day'", logger: logger)
    }
}
