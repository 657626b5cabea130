import Foundation
import Logging
import PostgresNIO

/// A provider identity linked to an account, as the account page lists it.
public struct LinkedIdentity: Sendable, Equatable {
    public let id: Int64
    public let provider: String
    public let subject: String
    public let email: String?
    public let displayName: String?
    public let createdAt: Date
    public let lastUsedAt: Date

    /// The columns every query that reads a link selects, in this order.
    static let columns = "id, provider, subject, email, display_name, created_at, last_used_at"

    static func all(in rows: PostgresRowSequence) async throws -> [LinkedIdentity] {
        var identities: [LinkedIdentity] = []
        for try await (id, provider, subject, email, name, created, used) in rows.decode(
            (Int64, String, String, String?, String?, Date, Date).self
        ) {
            identities.append(
                LinkedIdentity(id: id, provider: provider, subject: subject, email: email, displayName: name, createdAt: created, lastUsedAt: used)
            )
        }
        return identities
    }
}

/// Errors of linking identities that the person can act on.
public enum IdentityError: Error, Equatable {
    /// The identity already belongs to another account.
    case linkedToAnotherAccount
    /// Unlinking it would leave the account with no way to sign in.
    case lastWayToSignIn
    case noSuchIdentity
}

/// Storage of provider identities.
public struct IdentityRepository: Sendable {
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    /// The request's logger while serving one (its id on every line), else the one given at start.
    var logger: Logger { scopedLogger.current }

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.scopedLogger = ScopedLogger(logger)
    }

    /// The account an identity is linked to, if any; records its use (and the latest email and name).
    /// A link made before links recorded their issuer is this identity's when the provider's
    /// issuer cannot have changed (`isTheSamePersonAsAnUnissuedLink`): it is given the issuer
    /// then, once. (Without that, an account whose only way in was such a link was unreachable:
    /// the sign-in made a new, empty account.)
    public func owner(of identity: SocialIdentity) async throws -> UserCredentials? {
        let rows = try await client.query(
            """
            WITH exact AS (
                UPDATE user_identities SET last_used_at = now(),
                    email = coalesce(\(identity.email), email), display_name = coalesce(\(identity.name), display_name)
                WHERE provider = \(identity.provider) AND issuer = \(identity.issuer) AND subject = \(identity.subject)
                RETURNING user_id
            ), unissued AS (
                UPDATE user_identities SET issuer = \(identity.issuer), last_used_at = now(),
                    email = coalesce(\(identity.email), email), display_name = coalesce(\(identity.name), display_name)
                WHERE \(identity.isTheSamePersonAsAnUnissuedLink) AND provider = \(identity.provider) AND issuer = '' AND subject = \(identity.subject)
                  AND NOT EXISTS (
                    SELECT 1 FROM user_identities WHERE provider = \(identity.provider) AND issuer = \(identity.issuer) AND subject = \(identity.subject)
                  )
                RETURNING user_id
            )
            SELECT \(unescaped: UserCredentials.columns) FROM users u JOIN (SELECT user_id FROM exact UNION ALL SELECT user_id FROM unissued) used ON used.user_id = u.id
            """,
            logger: logger
        )
        return try await UserCredentials.first(in: rows)
    }

    /// Creates an account and links the identity to it, together. Throws
    /// `UniqueValueTaken.email` when the email belongs to another account and
    /// `IdentityError.linkedToAnotherAccount` when someone linked it meanwhile.
    public func createAccount(_ user: NewUser, linking identity: SocialIdentity) async throws -> UserCredentials {
        do {
            return try await client.transaction(logger: logger) { connection in
                guard let credentials = try await UserCredentials.first(in: connection.query(user.insertQuery, logger: logger)) else {
                    throw IdentityError.noSuchIdentity  // unreachable: INSERT … RETURNING yields the row
                }
                try await Self.link(identity, to: credentials.user.id, on: connection, logger: logger)  // throws: rolls the user back
                return credentials
            }
        } catch let error as TransactionError {
            if let identityError = error.closureError as? IdentityError { throw identityError }
            if let psql = error.closureError as? PSQLError, psql.isUniqueViolation(constraint: "users_email_key") {
                throw UniqueValueTaken.email
            }
            throw error
        }
    }

    /// Links the identity to the user (nothing happens if it already is).
    /// Whether the link is new (false: it existed already, and was only touched). With
    /// `inSession` (a signed-in browser's link), only while that session lasts
    /// (`AccountError.confirmItsYou` once it ended: see `UserAccess.requireSession`).
    @discardableResult
    /// `notice` (the owner's mail) is queued with a new link.
    public func link(_ identity: SocialIdentity, to userID: Int64, inSession sessionID: Int64? = nil, notifying notice: PendingNotice? = nil) async throws -> Bool {
        do {
            return try await client.transaction(logger: logger) { connection in
                if let sessionID { try await UserAccess.requireSession(sessionID, of: userID, on: connection, logger: logger) }
                let made = try await Self.link(identity, to: userID, on: connection, logger: logger)
                if made { try await notice?.queue(on: connection, logger: logger) }
                return made
            }
        } catch let error as TransactionError {
            if let identityError = error.closureError as? IdentityError { throw identityError }
            if let refusal = error.closureError as? AccountError { throw refusal }
            throw error
        }
    }

    /// The one INSERT of a link: a link that exists already is only touched, and if it belongs
    /// to someone else this throws `linkedToAnotherAccount`.
    @discardableResult
    private static func link(_ identity: SocialIdentity, to userID: Int64, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        // xmax is 0 on a row the INSERT made, the updating transaction's id on one it touched.
        let rows = try await connection.query(
            """
            INSERT INTO user_identities (user_id, provider, issuer, subject, email, display_name)
            VALUES (\(userID), \(identity.provider), \(identity.issuer), \(identity.subject), \(identity.email), \(identity.name))
            ON CONFLICT (provider, issuer, subject) DO UPDATE SET last_used_at = now()
            RETURNING user_id, xmax = 0
            """,
            logger: logger
        )
        var made = false
        for try await (owner, inserted) in rows.decode((Int64, Bool).self) {
            if owner != userID { throw IdentityError.linkedToAnotherAccount }
            made = inserted
        }
        return made
    }

    public func identities(of userID: Int64) async throws -> [LinkedIdentity] {
        try await LinkedIdentity.all(
            in: client.query(
                "SELECT \(unescaped: LinkedIdentity.columns) FROM user_identities WHERE user_id = \(userID) ORDER BY created_at, id",
                logger: logger
            )
        )
    }

    /// Removes a link, unless it is the account's last way to sign in: no other link, and no
    /// password usable with an email or username.
    /// `notice`: the owner's mail, for the link removed.
    public func unlink(
        identityID: Int64, of userID: Int64, notifying notice: @escaping @Sendable (LinkedIdentity) -> PendingNotice? = { _ in nil }
    ) async throws -> LinkedIdentity {
        do {
            return try await client.transaction(logger: logger) { connection in
                // The user locked first: a concurrent unlink or passkey removal waits, and the
                // ways in are then read afresh.
                guard let waysIn = try await UserAccess.lockWaysIn(userID: userID, on: connection, logger: logger) else {
                    throw IdentityError.noSuchIdentity
                }
                let deleted = try await connection.query(
                    """
                    DELETE FROM user_identities WHERE id = \(identityID) AND user_id = \(userID)
                    RETURNING \(unescaped: LinkedIdentity.columns)
                    """,
                    logger: logger
                )
                guard let removed = try await LinkedIdentity.all(in: deleted).first else { throw IdentityError.noSuchIdentity }
                guard waysIn.canLoseOne else { throw IdentityError.lastWayToSignIn }  // rolls the DELETE back
                try await notice(removed)?.queue(on: connection, logger: logger)
                return removed
            }
        } catch let error as TransactionError {
            if let identityError = error.closureError as? IdentityError { throw identityError }
            throw error
        }
    }
}
