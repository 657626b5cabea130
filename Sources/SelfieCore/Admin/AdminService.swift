import Foundation
import Logging

/// What admins (on the admin pages, or with `selfie admin`) can do, each action audited with the
/// acting admin and the target.
public struct AdminService: Sendable {
    let admin: AdminRepository
    let accounts: AccountService
    let emails: AccountEmails
    let outbox: MailOutboxRepository
    let appKeys: AppKeyService
    let blobDeletions: BlobDeletions
    let audit: AuditRepository
    let secondFactor: SecondFactorService
    let sharing: ShareLinkService
    let scopedLogger: ScopedLogger
    /// The request's logger while serving one (its id on every line), else the one given at start.
    var logger: Logger { scopedLogger.current }

    public init(
        admin: AdminRepository,
        accounts: AccountService,
        emails: AccountEmails,
        outbox: MailOutboxRepository,
        appKeys: AppKeyService,
        blobDeletions: BlobDeletions,
        audit: AuditRepository,
        secondFactor: SecondFactorService,
        sharing: ShareLinkService,
        logger: Logger
    ) {
        self.secondFactor = secondFactor
        self.sharing = sharing
        self.admin = admin
        self.accounts = accounts
        self.emails = emails
        self.outbox = outbox
        self.appKeys = appKeys
        self.blobDeletions = blobDeletions
        self.audit = audit
        self.scopedLogger = ScopedLogger(logger)
    }

    /// Actions on a user, each behind a confirmation page and a CSRF-protected POST.
    public enum UserAction: String, CaseIterable, Sendable {
        case disable
        case enable
        case revokeAccess = "revoke-access"
        case delete
        case promote
        case demote
        /// Mails the user a link to choose a new password (their current one keeps working until
        /// they do).
        case sendResetLink = "send-reset-link"
        /// Removes the user's authenticator app, recovery codes, remembered browsers and passkeys
        /// (they lost their phone): their password alone signs them in until they set it up again.
        case resetSecondFactor = "reset-two-factor"
        /// Turns off every share link of the user at once (their photos stay).
        case revokeLinks = "revoke-links"

        var event: AuditEventType {
            switch self {
            case .disable: .userDisabled
            case .enable: .userEnabled
            case .revokeAccess: .userSessionsRevoked
            case .delete: .userDeleted
            case .promote: .userPromoted
            case .demote: .userDemoted
            case .sendResetLink: .passwordResetLinkIssued
            case .resetSecondFactor: .twoFactorReset
            case .revokeLinks: .shareLinksRevokedByAdmin
            }
        }
    }

    public func perform(_ action: UserAction, on userID: Int64, by actor: User?, origin: RequestOrigin) async throws {
        guard let target = try await admin.user(id: userID)?.user else { throw AdminError.noSuchUser }
        let record = AuditRecord(type: action.event, actor: actor?.id, targetUser: target.id, target: target.handle, origin: origin)
        switch action {
        case .disable: try await admin.setDisabled(true, userID: userID, audit: record)
        case .enable: try await admin.setDisabled(false, userID: userID, audit: record)
        case .revokeAccess: try await admin.revokeAccess(userID: userID, audit: record)
        case .promote: try await admin.setRole(.admin, userID: userID, audit: record)
        case .demote: try await admin.setRole(.user, userID: userID, audit: record)
        case .sendResetLink:
            try await emails.issuePasswordReset(for: target, mailed: true, by: actor, origin: origin)
        case .resetSecondFactor:
            try await secondFactor.reset(target, as: AdminAct(record))
        case .revokeLinks:
            _ = try await sharing.revokeAll(ofUserID: userID, audit: record)
        case .delete:
            await blobDeletions.drain(try await admin.deleteUser(id: userID, act: AdminAct(record, removingAdmin: userID)))
        }
    }

    /// Sets a user's storage quota (`.followsDefault`: `DEFAULT_QUOTA_BYTES`), audited with the
    /// new value; `describe` words it for the audit log.
    public func setQuota(_ quota: QuotaSetting, described: String, on userID: Int64, by actor: User, origin: RequestOrigin) async throws {
        guard let target = try await admin.user(id: userID)?.user else { throw AdminError.noSuchUser }
        if case .bytes(let bytes) = quota, bytes <= 0 { throw AdminError.invalidQuota }
        let record = AuditRecord(type: .quotaChanged, actor: actor.id, targetUser: target.id, target: "\(target.handle): \(described)", origin: origin)
        try await admin.setQuota(quota, userID: userID, audit: record)
    }

    // MARK: Reading

    public func dashboard() async throws -> DashboardCounts { try await admin.dashboard() }

    /// One page of users matching `search` (any part of the email or name, any case).
    public func users(search: String, sort: UserSort, offset: Int, limit: Int) async throws -> [UserSummary] {
        try await admin.users(search: search, sort: sort, offset: offset, limit: limit)
    }

    public func user(id: Int64) async throws -> UserSummary? { try await admin.user(id: id) }

    public func tokens(of userID: Int64) async throws -> [TokenSummary] { try await admin.tokens(userID: userID) }

    /// Mail that could not be delivered (newest first) and how much is still waiting to go.
    public func undeliveredMail(limit: Int) async throws -> (failed: [UndeliveredMail], pending: Int) {
        try await outbox.undelivered(limit: limit)
    }

    /// Newest first; `userID` matches actor or target; `before` pages by id.
    public func auditEntries(userID: Int64?, type: String?, before: Int64?, limit: Int) async throws -> [AuditEntry] {
        try await audit.entries(userID: userID, type: type, before: before, limit: limit)
    }

    /// Creates an account with the admin role (the `selfie admin create` command).
    public func createAdmin(email: String, fullName: String, password: String, origin: RequestOrigin) async throws -> User {
        let request = SignUpRequest(fullName: fullName, email: email, password: password, passwordConfirmation: nil)
        let user = try await accounts.createAccount(request, role: .admin).user
        await audit.record(.userCreated, actor: nil, targetUser: user.id, target: "\(user.handle) (admin)", origin: origin)
        return user
    }

    /// Promotes or demotes by email (the `selfie admin promote|demote` commands).
    public func setRole(_ role: User.Role, email: String, origin: RequestOrigin) async throws -> User {
        guard let user = try await admin.user(email: email.trimmingCharacters(in: .whitespaces)) else { throw AdminError.noSuchUser }
        try await perform(role == .admin ? .promote : .demote, on: user.id, by: nil, origin: origin)
        return user
    }

    /// A reset link for the user with this email, not mailed (`selfie admin reset-link`): its token.
    public func issuePasswordReset(email: String, origin: RequestOrigin) async throws -> String {
        guard let user = try await admin.user(email: email.trimmingCharacters(in: .whitespaces)) else { throw AdminError.noSuchUser }
        return try await emails.issuePasswordReset(for: user, mailed: false, by: nil, origin: origin)
    }

    // MARK: App keys

    public func appKeyListings() async throws -> [AppKeyListing] {
        let uses = try await appKeys.keys.lastUses()
        let environment = AppKeyListing(
            name: appKeys.environmentKey.name,
            isFromEnvironment: true,
            createdAt: nil,
            revokedAt: nil,
            lastUsedAt: uses[appKeys.environmentKey.name]
        )
        return try await [environment] + appKeys.keys.all().map {
            AppKeyListing(name: $0.name, isFromEnvironment: false, createdAt: $0.createdAt, revokedAt: $0.revokedAt, lastUsedAt: uses[$0.name])
        }
    }

    /// Adds a key and returns its generated password, which is shown once and never stored.
    public func createAppKey(name: String, by actor: User, origin: RequestOrigin) async throws -> String {
        let name = name.trimmingCharacters(in: .whitespaces)
        guard name.range(of: "^[A-Za-z0-9._-]{3,64}$", options: .regularExpression) != nil else {
            throw AdminError.invalidKeyName
        }
        guard name != appKeys.environmentKey.name else {
            throw AdminError.keyNameReserved
        }
        let password = RandomToken.urlSafe(byteCount: 24)
        let record = AuditRecord(type: .appKeyCreated, actor: actor.id, targetUser: nil, target: name, origin: origin)
        try await appKeys.keys.create(name: name, passwordDigest: AppKey(name: name, password: password).passwordDigest, as: AdminAct(record))
        return password
    }

    public func revokeAppKey(name: String, by actor: User, origin: RequestOrigin) async throws {
        let record = AuditRecord(type: .appKeyRevoked, actor: actor.id, targetUser: nil, target: name, origin: origin)
        try await appKeys.keys.revoke(name: name, as: AdminAct(record))
    }
}
