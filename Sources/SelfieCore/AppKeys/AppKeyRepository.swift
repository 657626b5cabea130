import Foundation
import Logging
import NIOCore
import PostgresNIO

/// An app key as the admin page lists it.
public struct AppKeyListing: Sendable {
    public let name: String
    /// From `API_AUTH_NAME`/`API_AUTH_PASSWORD`: always valid, cannot be revoked here.
    public let isFromEnvironment: Bool
    public let createdAt: Date?
    public let revokedAt: Date?
    public let lastUsedAt: Date?
}

/// App keys added by admins (only the SHA-256 of each password is kept) and every key's last use.
public struct AppKeyRepository: Sendable {
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    /// The request's logger while serving one (its id on every line), else the one given at start.
    var logger: Logger { scopedLogger.current }

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.scopedLogger = ScopedLogger(logger)
    }

    /// Adds a key; `AdminError.keyNameTaken` when a key (revoked or not) has the name.
    func create(name: String, passwordDigest: [UInt8], as act: AdminAct) async throws {
        let logger = self.logger
        do {
            try await client.transaction(as: act, logger: logger) { connection, _ in
                try await connection.query(
                    "INSERT INTO app_keys (name, password_digest, created_by) VALUES (\(name), \(ByteBuffer(bytes: passwordDigest)), \(act.record.actor))",
                    logger: logger
                )
            }
        } catch let error as TransactionError where (error.closureError as? PSQLError)?.isUniqueViolation() == true {
            throw AdminError.keyNameTaken
        }
    }

    /// Revokes the key; `AdminError.noSuchKey` when no active key has the name.
    func revoke(name: String, as act: AdminAct) async throws {
        let logger = self.logger
        try await client.transaction(as: act, logger: logger) { connection, _ in
            let rows = try await connection.query(
                "UPDATE app_keys SET revoked_at = now() WHERE name = \(name) AND revoked_at IS NULL RETURNING id",
                logger: logger
            )
            guard try await rows.collect().count == 1 else { throw AdminError.noSuchKey }
        }
    }

    /// The key if it exists and is not revoked.
    public func activeKey(named name: String) async throws -> AppKey? {
        for try await digest in try await client.query(
            "SELECT password_digest FROM app_keys WHERE name = \(name) AND revoked_at IS NULL",
            logger: logger
        ).decode(ByteBuffer.self) {
            return AppKey(name: name, passwordDigest: Array(digest.readableBytesView))
        }
        return nil
    }

    public func all() async throws -> [(name: String, createdAt: Date, revokedAt: Date?)] {
        var keys: [(String, Date, Date?)] = []
        for try await row in try await client.query(
            "SELECT name, created_at, revoked_at FROM app_keys ORDER BY created_at DESC",
            logger: logger
        ).decode((String, Date, Date?).self) {
            keys.append(row)
        }
        return keys
    }

    public func recordUse(of name: String) async throws {
        try await client.query(
            """
            INSERT INTO app_key_usage (name, last_used_at) VALUES (\(name), now())
            ON CONFLICT (name) DO UPDATE SET last_used_at = excluded.last_used_at
            """,
            logger: logger
        )
    }

    public func lastUses() async throws -> [String: Date] {
        var uses: [String: Date] = [:]
        for try await (name, at) in try await client.query("SELECT name, last_used_at FROM app_key_usage", logger: logger)
            .decode((String, Date).self)
        {
            uses[name] = at
        }
        return uses
    }
}
