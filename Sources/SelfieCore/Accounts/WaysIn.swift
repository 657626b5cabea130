import Foundation
import Logging
import PostgresNIO

/// The ways into an account: a password (with an email or username to type next to it), linked
/// providers, passkeys. One value for every rule that must keep at least one: unlinking a
/// provider, removing a passkey, the account page's offers, and how deleting the account is
/// confirmed.
public struct WaysIn: Sendable, Equatable {
    /// A password that can sign in: a hash, and an email or username to type next to it.
    public let password: Bool
    public let identities: Int
    public let passkeys: Int

    public var count: Int { (password ? 1 : 0) + identities + passkeys }

    /// Whether one provider or passkey can go and still leave a way in.
    public var canLoseOne: Bool { count > 1 }

    /// The account's ways in, read on `connection` (inside the transaction that changes them, after
    /// the user's row is locked in an earlier statement, so this statement's snapshot sees what a
    /// concurrent change committed) or on any connection of `client`.
    static func read(userID: Int64, on connection: PostgresConnection, logger: Logger) async throws -> WaysIn? {
        try await first(in: connection.query(query(userID: userID), logger: logger))
    }

    static func read(userID: Int64, client: PostgresClient, logger: Logger) async throws -> WaysIn? {
        try await first(in: client.query(query(userID: userID), logger: logger))
    }

    /// Locks the user's row (a statement of its own), so concurrent changes to the ways in wait
    /// for each other, then reads them afresh. Nil when there is no such user.
    static func lockAndRead(userID: Int64, on connection: PostgresConnection, logger: Logger) async throws -> WaysIn? {
        try await connection.query("SELECT id FROM users WHERE id = \(userID) FOR UPDATE", logger: logger).collect()
        return try await read(userID: userID, on: connection, logger: logger)
    }

    private static func query(userID: Int64) -> PostgresQuery {
        """
        SELECT u.password_hash IS NOT NULL AND (u.email IS NOT NULL OR u.username IS NOT NULL),
               (SELECT count(*)::int FROM user_identities i WHERE i.user_id = u.id),
               (SELECT count(*)::int FROM passkeys p WHERE p.user_id = u.id)
        FROM users u WHERE u.id = \(userID)
        """
    }

    private static func first(in rows: PostgresRowSequence) async throws -> WaysIn? {
        for try await (password, identities, passkeys) in rows.decode((Bool, Int, Int).self) {
            return WaysIn(password: password, identities: identities, passkeys: passkeys)
        }
        return nil
    }
}
