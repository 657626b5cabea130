import Foundation
import Logging
import PostgresNIO

/// A passkey as the account page lists it.
public struct Passkey: Sendable, Equatable {
    public let id: Int64
    public let name: String
    /// Synced to the person's other devices (WebAuthn's BS flag).
    public let isBackedUp: Bool
    public let createdAt: Date
    public let lastUsedAt: Date?
}

/// A stored passkey with what a sign-in checks against.
struct StoredPasskey: Sendable {
    let id: Int64
    let userID: Int64
    let userHandle: [UInt8]
    let publicKey: [UInt8]
    let signCount: UInt32
}

/// The passkey tables: credentials, the random WebAuthn user handle of each account, and the
/// one-time challenges (taken back with a DELETE, so each answers one ceremony).
struct PasskeyRepository: Sendable {
    enum Purpose: String { case register, signIn = "sign-in" }

    let client: PostgresClient
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }

    /// The account's WebAuthn user handle, made on first use.
    func userHandle(userID: Int64, ifMissing fresh: [UInt8]) async throws -> [UInt8] {
        let rows = try await client.query(
            """
            UPDATE users SET webauthn_user_handle = coalesce(webauthn_user_handle, \(ByteBuffer(bytes: fresh)))
            WHERE id = \(userID) RETURNING webauthn_user_handle
            """,
            logger: logger
        )
        for try await handle in rows.decode(ByteBuffer.self) { return Array(buffer: handle) }
        throw SecondFactorError.passkeyRefused("no such user")
    }

    func saveChallenge(_ challenge: [UInt8], purpose: Purpose, userID: Int64?, lifetime: TimeInterval) async throws {
        try await client.query(
            """
            INSERT INTO webauthn_challenges (challenge, purpose, user_id, expires_at)
            VALUES (\(ByteBuffer(bytes: challenge)), \(purpose.rawValue), \(userID), \(Date.now.addingTimeInterval(lifetime)))
            """,
            logger: logger
        )
    }

    /// True once for a live challenge issued for this purpose (and account).
    func takeChallenge(_ challenge: [UInt8], purpose: Purpose, userID: Int64?) async throws -> Bool {
        let rows = try await client.query(
            """
            DELETE FROM webauthn_challenges
            WHERE challenge = \(ByteBuffer(bytes: challenge)) AND purpose = \(purpose.rawValue)
              AND user_id IS NOT DISTINCT FROM \(userID) AND expires_at > now()
            RETURNING 1
            """,
            logger: logger
        )
        for try await _ in rows { return true }
        return false
    }

    /// Stores a new passkey while the session that asks for it lasts (`AccountError.confirmItsYou`
    /// once it ended); nil when its credential id is already registered (to anyone).
    func add(
        userID: Int64, credentialID: [UInt8], publicKey: [UInt8], signCount: UInt32, name: String, isBackedUp: Bool, whileSession sessionID: Int64,
        notifying notice: PendingNotice?
    ) async throws -> Passkey? {
        let logger = self.logger
        do {
            return try await client.transaction(logger: logger) { connection in
                try await UserAccess.requireSession(sessionID, of: userID, on: connection, logger: logger)
                let rows = try await connection.query(
                    """
                    INSERT INTO passkeys (user_id, credential_id, public_key, sign_count, name, backed_up)
                    VALUES (\(userID), \(ByteBuffer(bytes: credentialID)), \(ByteBuffer(bytes: publicKey)), \(Int64(signCount)), \(name), \(isBackedUp))
                    ON CONFLICT (credential_id) DO NOTHING
                    RETURNING \(unescaped: Self.columns)
                    """,
                    logger: logger
                )
                guard let added = try await Self.passkeys(in: rows).first else { return nil }
                try await notice?.queue(on: connection, logger: logger)
                return added
            }
        } catch let error as TransactionError {
            if let refusal = error.closureError as? AccountError { throw refusal }
            throw error
        }
    }

    func find(credentialID: [UInt8]) async throws -> StoredPasskey? {
        let rows = try await client.query(
            """
            SELECT p.id, p.user_id, u.webauthn_user_handle, p.public_key, p.sign_count
            FROM passkeys p JOIN users u ON u.id = p.user_id
            WHERE p.credential_id = \(ByteBuffer(bytes: credentialID))
            """,
            logger: logger
        )
        for try await (id, userID, handle, key, count) in rows.decode((Int64, Int64, ByteBuffer?, ByteBuffer, Int64).self) {
            return StoredPasskey(id: id, userID: userID, userHandle: handle.map { Array(buffer: $0) } ?? [], publicKey: Array(buffer: key), signCount: UInt32(clamping: count))
        }
        return nil
    }

    /// Records a sign-in's counter, only if no other sign-in moved it meanwhile.
    func recordUse(id: Int64, previousCount: UInt32, newCount: UInt32, isBackedUp: Bool) async throws -> Bool {
        let rows = try await client.query(
            """
            UPDATE passkeys SET sign_count = \(Int64(newCount)), backed_up = \(isBackedUp), last_used_at = now()
            WHERE id = \(id) AND sign_count = \(Int64(previousCount)) RETURNING 1
            """,
            logger: logger
        )
        for try await _ in rows { return true }
        return false
    }

    func list(userID: Int64) async throws -> [Passkey] {
        try await Self.passkeys(in: client.query(
            "SELECT \(unescaped: Self.columns) FROM passkeys WHERE user_id = \(userID) ORDER BY created_at, id",
            logger: logger
        ))
    }

    func credentialIDs(userID: Int64) async throws -> [[UInt8]] {
        var ids: [[UInt8]] = []
        let rows = try await client.query("SELECT credential_id FROM passkeys WHERE user_id = \(userID)", logger: logger)
        for try await id in rows.decode(ByteBuffer.self) { ids.append(Array(buffer: id)) }
        return ids
    }

    func rename(id: Int64, userID: Int64, to name: String) async throws -> Bool {
        let rows = try await client.query(
            "UPDATE passkeys SET name = \(name) WHERE id = \(id) AND user_id = \(userID) RETURNING 1",
            logger: logger
        )
        for try await _ in rows { return true }
        return false
    }

    /// Removes the passkey, unless it is the account's last way in (`SecondFactorError.lastWayIn`);
    /// nil when the account has no such passkey. Under the user's lock, like unlinking a provider,
    /// so the two racing cannot together remove the last two ways in.
    /// `notice`: the owner's mail, for the removed passkey's name.
    func remove(id: Int64, userID: Int64, notifying notice: @escaping @Sendable (String) -> PendingNotice?) async throws -> String? {
        let logger = self.logger
        do {
            return try await client.transaction(logger: logger) { connection -> String? in
                guard let waysIn = try await UserAccess.lockWaysIn(userID: userID, on: connection, logger: logger) else { return nil }
                let rows = try await connection.query("DELETE FROM passkeys WHERE id = \(id) AND user_id = \(userID) RETURNING name", logger: logger)
                var removed: String?
                for try await name in rows.decode(String.self) { removed = name }
                guard let removed else { return nil }
                guard waysIn.canLoseOne else { throw SecondFactorError.lastWayIn }  // rolls the DELETE back
                try await notice(removed)?.queue(on: connection, logger: logger)
                return removed
            }
        } catch let error as TransactionError {
            if let refusal = error.closureError as? SecondFactorError { throw refusal }
            throw error
        }
    }

    private static let columns = "id, name, backed_up, created_at, last_used_at"

    private static func passkeys(in rows: PostgresRowSequence) async throws -> [Passkey] {
        var passkeys: [Passkey] = []
        for try await (id, name, backedUp, createdAt, lastUsedAt) in rows.decode((Int64, String, Bool, Date, Date?).self) {
            passkeys.append(Passkey(id: id, name: name, isBackedUp: backedUp, createdAt: createdAt, lastUsedAt: lastUsedAt))
        }
        return passkeys
    }
}
