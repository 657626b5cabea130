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
    public func create(name: String, passwordDigest: [UInt8], createdBy: Int64?) async throws {
        do {
            try await client.query(
                "INSERT INTO app_keys (name, password_digest, created_by) VALUES (\(name), \(ByteBuffer(bytes: passwordDigest)), \(createdBy))",
                logger: logger
            )
        } catch let error as PSQLError where error.isUniqueViolation() {
            throw AdminError.keyNameTaken
        }
    }

    public func revoke(name: String) async throws -> Bool {
        let rows = try await client.query(
            "UPDATE app_keys SET revoked_at = now() WHERE name = \(name) AND revoked_at IS NULL RETURNING id",
            logger: logger
        )
        return try await rows.collect().count == 1
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
