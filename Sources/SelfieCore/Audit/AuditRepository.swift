import Foundation
import Logging
import PostgresNIO

/// The kinds of security events Selfie records.
public enum AuditEventType: String, CaseIterable, Sendable {
    case signedUp = "user.signed_up"
    /// Signed in with a password — or, for an account with two-step verification, with a password
    /// or a provider and then its code or a remembered browser (the target says which) — recorded
    /// once the sign-in is complete. A provider without a code is `social.signed_in`, a passkey
    /// `passkey.signed_in`.
    case signInSucceeded = "sign_in.succeeded"
    /// The password or the provider was right for an account with two-step verification: its code
    /// is asked. Not a sign-in (yet): what an attacker holding the password alone gets to.
    case signInCodeAsked = "sign_in.code_asked"
    case signInFailed = "sign_in.failed"
    /// Refused without checking the password: the account is locked after too many failures.
    case signInLocked = "sign_in.locked"
    case signedOut = "session.signed_out"
    /// "Sign out everywhere else": the target says how many sessions ended.
    case otherSessionsEnded = "session.others_ended"
    /// Signed in (or up) through a provider; the target names the provider.
    case socialSignInSucceeded = "social.signed_in"
    case socialSignInRefused = "social.refused"
    case identityLinked = "social.linked"
    case identityUnlinked = "social.unlinked"
    case passwordChanged = "password.changed"
    /// A wrong current password given to confirm a change (counted like a failed sign-in).
    case passwordCheckFailed = "password.check_failed"
    case passwordResetRequested = "password.reset_requested"
    /// A reset link made for a user by an admin (page or `selfie admin reset-link`).
    case passwordResetLinkIssued = "admin.reset_link_issued"
    case passwordReset = "password.reset"
    case emailVerified = "email.verified"
    case emailChangeRequested = "email.change_requested"
    case emailChanged = "email.changed"
    case accountDeleted = "account.deleted"
    case dataExported = "account.exported"
    case tokenIssued = "token.issued"
    case tokenRevoked = "token.revoked"
    case photoUploaded = "photo.uploaded"
    case photoDeleted = "photo.deleted"
    /// Moved to the trash (deleted for good later: `photo.deleted`).
    case photoTrashed = "photo.trashed"
    case photoRestored = "photo.restored"
    case userCreated = "admin.user_created"
    case userDisabled = "admin.user_disabled"
    case userEnabled = "admin.user_enabled"
    case userSessionsRevoked = "admin.sessions_revoked"
    case userDeleted = "admin.user_deleted"
    case userPromoted = "admin.user_promoted"
    case userDemoted = "admin.user_demoted"
    case appKeyCreated = "admin.app_key_created"
    case appKeyRevoked = "admin.app_key_revoked"
    case twoFactorEnabled = "two_factor.enabled"
    case twoFactorDisabled = "two_factor.disabled"
    /// A wrong or replayed code at sign-in (counted like a failed sign-in).
    case twoFactorFailed = "two_factor.failed"
    case recoveryCodeUsed = "two_factor.recovery_code_used"
    case recoveryCodesRegenerated = "two_factor.recovery_codes_regenerated"
    /// "Forget remembered browsers": each asks for the code again.
    case browsersForgotten = "two_factor.browsers_forgotten"
    /// An admin removed a user's authenticator app, recovery codes, remembered browsers and passkeys.
    case twoFactorReset = "admin.two_factor_reset"
    case passkeyAdded = "passkey.added"
    case passkeyRemoved = "passkey.removed"
    case passkeySignedIn = "passkey.signed_in"
    /// An album deleted; the target names it and the share links that went with it.
    case albumDeleted = "album.deleted"
    case shareLinkCreated = "share_link.created"
    case shareLinkRevoked = "share_link.revoked"
    /// Repeated wrong passwords locked a share link for a while (target: the link's public id).
    case shareLinkPasswordLocked = "share_link.password_locked"
    case shareLinksRevokedByAdmin = "admin.share_links_revoked"
    /// An admin set a user's storage quota (target: the user and the new quota).
    case quotaChanged = "admin.quota_changed"
}

/// An event to record.
public struct AuditRecord: Sendable {
    let type: AuditEventType
    let actor: Int64?
    let targetUser: Int64?
    var target: String
    let origin: RequestOrigin

    /// The INSERT of this event (alone, or inside the transaction of the change it records, so that
    /// the change and its event commit together).
    var insertQuery: PostgresQuery {
        Self.insertQuery(type, actor: actor, targetUser: targetUser, targets: [target], origin: origin)
    }

    /// Events of one user each about `targets`.
    static func insertQuery(_ type: AuditEventType, actor: Int64?, targetUser: Int64?, targets: [String], origin: RequestOrigin) -> PostgresQuery {
        insertQuery(type, actor: actor, targets: targets.map { AuditTarget(user: targetUser, text: $0) }, origin: origin)
    }

    /// The one INSERT every audit event goes through: one event per target, each with the user it
    /// is about. The users go as bigint with 0 for none (ids start at 1; an array of optionals
    /// cannot be bound).
    static func insertQuery(_ type: AuditEventType, actor: Int64?, targets: [AuditTarget], origin: RequestOrigin) -> PostgresQuery {
        let users = targets.map { $0.user ?? 0 }
        let texts = targets.map { String($0.text.prefix(320)) }
        return """
            INSERT INTO audit_events (event, actor_id, target_user_id, target, ip_address, user_agent)
            SELECT \(type.rawValue), \(actor), NULLIF(t.user_id, 0), t.target, \(origin.ipAddress), \(origin.userAgent)
            FROM unnest(\(users)::bigint[], \(texts)::text[]) AS t(user_id, target)
            """
    }
}

/// What one audit event is about: a user (nil: none) and the thing it names.
public struct AuditTarget: Sendable {
    public let user: Int64?
    public let text: String

    public init(user: Int64?, text: String) {
        self.user = user
        self.text = text
    }
}

/// One recorded event.
public struct AuditEntry: Sendable {
    public let id: Int64
    public let occurredAt: Date
    public let type: String
    public let actorID: Int64?
    public let actorEmail: String?
    public let targetUserID: Int64?
    public let targetUserEmail: String?
    public let target: String
    public let ipAddress: String
    public let userAgent: String
}

/// The append-only record of security events.
public struct AuditRepository: Sendable {
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    /// The request's logger while serving one (its id on every line), else the one given at start.
    var logger: Logger { scopedLogger.current }

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.scopedLogger = ScopedLogger(logger)
    }

    /// Records an event. Never throws: a failure to audit is logged, and the action it describes
    /// (already done) is not undone. Admin actions do not come here: their events are written in
    /// the same transaction as the change (`AuditRecord.insertQuery`).
    public func record(_ type: AuditEventType, actor: Int64?, targetUser: Int64?, target: String, origin: RequestOrigin) async {
        do {
            let record = AuditRecord(type: type, actor: actor, targetUser: targetUser, target: target, origin: origin)
            try await client.query(record.insertQuery, logger: logger)
        } catch {
            logger.error("could not record audit event", metadata: ["event": "\(type.rawValue)", "error": "\(String(reflecting: error))"])
        }
    }

    /// Records one event per target in one statement (a trash of thousands emptied at once is one
    /// INSERT, not thousands). Never throws, like `record`.
    public func record(_ type: AuditEventType, actor: Int64?, targetUser: Int64?, targets: [String], origin: RequestOrigin) async {
        await record(type, actor: actor, targets: targets.map { AuditTarget(user: targetUser, text: $0) }, origin: origin)
    }

    /// The same, for targets about several users (what the trash's purge deleted, across accounts).
    public func record(_ type: AuditEventType, actor: Int64?, targets: [AuditTarget], origin: RequestOrigin) async {
        guard !targets.isEmpty else { return }
        do {
            try await client.query(AuditRecord.insertQuery(type, actor: actor, targets: targets, origin: origin), logger: logger)
        } catch {
            logger.error("could not record audit events", metadata: ["event": "\(type.rawValue)", "count": "\(targets.count)", "error": "\(String(reflecting: error))"])
        }
    }

    /// Newest first; `userID` matches actor or target; `before` pages by id.
    public func entries(userID: Int64?, type: String?, before: Int64?, limit: Int) async throws -> [AuditEntry] {
        let rows = try await client.query(
            """
            SELECT e.id, e.occurred_at, e.event, e.actor_id, a.email, e.target_user_id, t.email, e.target, e.ip_address, e.user_agent
            FROM audit_events e
            LEFT JOIN users a ON a.id = e.actor_id
            LEFT JOIN users t ON t.id = e.target_user_id
            WHERE (\(userID)::bigint IS NULL OR e.actor_id = \(userID) OR e.target_user_id = \(userID))
              AND (\(type)::text IS NULL OR e.event = \(type))
              AND (\(before)::bigint IS NULL OR e.id < \(before))
            ORDER BY e.id DESC
            LIMIT \(limit)
            """,
            logger: logger
        )
        var entries: [AuditEntry] = []
        for try await (id, at, event, actor, actorEmail, targetUser, targetEmail, target, ip, agent) in rows.decode(
            (Int64, Date, String, Int64?, String?, Int64?, String?, String, String, String).self
        ) {
            entries.append(
                AuditEntry(
                    id: id,
                    occurredAt: at,
                    type: event,
                    actorID: actor,
                    actorEmail: actorEmail,
                    targetUserID: targetUser,
                    targetUserEmail: targetEmail,
                    target: target,
                    ipAddress: ip,
                    userAgent: agent
                )
            )
        }
        return entries
    }
}
