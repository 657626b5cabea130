import Foundation
import Logging
import PostgresNIO

/// Storage of users.
public protocol UserRepository: Sendable {
    /// Inserts a user; throws `AccountError.emailTaken` when the email's unique index refuses it.
    func create(email: String, fullName: String, passwordHash: String, role: User.Role) async throws -> User
    func find(id: Int64) async throws -> User?
    func credentials(forEmail email: String) async throws -> UserCredentials?
    func credentials(forID id: Int64) async throws -> UserCredentials?
    /// Stores a new password hash and, in the same transaction, ends every browser session of the
    /// user but `keepingSession` and revokes every API token: nothing signed in with the old
    /// password outlives the change.
    func replacePassword(userID: Int64, passwordHash: String, keepingSession: Int64?) async throws
    func recordSignIn(userID: Int64) async throws
}

public struct PostgresUserRepository: UserRepository {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    private typealias Row = (Int64, String, String, String, Bool, Date, String)
    private static let columns = "id, email, full_name, role, disabled, created_at, password_hash"

    public func create(email: String, fullName: String, passwordHash: String, role: User.Role) async throws -> User {
        do {
            let rows = try await client.query(
                """
                INSERT INTO users (email, full_name, password_hash, role)
                VALUES (\(email), \(fullName), \(passwordHash), \(role.rawValue))
                RETURNING \(unescaped: Self.columns)
                """,
                logger: logger
            )
            guard let row = try await rows.decode(Row.self).first(where: { _ in true }) else {
                throw AccountError.emailTaken  // unreachable: INSERT … RETURNING yields the row
            }
            return Self.credentials(from: row).user
        } catch let error as PSQLError where error.isUniqueViolation(constraint: "users_email_key") {
            throw AccountError.emailTaken
        }
    }

    public func find(id: Int64) async throws -> User? {
        try await credentials(forID: id)?.user
    }

    public func credentials(forEmail email: String) async throws -> UserCredentials? {
        try await fetchOne(
            "SELECT \(unescaped: Self.columns) FROM users WHERE lower(email) = lower(\(email))"
        )
    }

    public func credentials(forID id: Int64) async throws -> UserCredentials? {
        try await fetchOne("SELECT \(unescaped: Self.columns) FROM users WHERE id = \(id)")
    }

    public func replacePassword(userID: Int64, passwordHash: String, keepingSession: Int64?) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query(
                "UPDATE users SET password_hash = \(passwordHash), updated_at = now() WHERE id = \(userID)",
                logger: logger
            )
            try await UserAccess.revokeAll(userID: userID, keepingSession: keepingSession, on: connection, logger: logger)
        }
    }

    public func recordSignIn(userID: Int64) async throws {
        try await client.query("UPDATE users SET last_signed_in_at = now() WHERE id = \(userID)", logger: logger)
    }

    private func fetchOne(_ query: PostgresQuery) async throws -> UserCredentials? {
        for try await row in try await client.query(query, logger: logger).decode(Row.self) {
            return Self.credentials(from: row)
        }
        return nil
    }

    private static func credentials(from row: Row) -> UserCredentials {
        let (id, email, fullName, role, disabled, createdAt, hash) = row
        let user = User(row: (id, email, fullName, role, disabled, createdAt))
        return UserCredentials(user: user, passwordHash: hash)
    }
}
