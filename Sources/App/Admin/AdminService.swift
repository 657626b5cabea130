import Foundation
import Logging
import PostgresNIO

/// What admins (on the admin pages, or with `selfie admin`) can do, each action audited with the
/// acting admin and the target.
public struct AdminService: Sendable {
    let admin: any AdminRepository
    let accounts: AccountService
    let appKeys: AppKeyDirectory
    let blobs: any BlobStore
    let audit: any AuditLog
    let logger: Logger

    public init(
        admin: any AdminRepository,
        accounts: AccountService,
        appKeys: AppKeyDirectory,
        blobs: any BlobStore,
        audit: any AuditLog,
        logger: Logger
    ) {
        self.admin = admin
        self.accounts = accounts
        self.appKeys = appKeys
        self.blobs = blobs
        self.audit = audit
        self.logger = logger
    }

    /// Actions on a user, each behind a confirmation page and a CSRF-protected POST.
    public enum UserAction: String, CaseIterable, Sendable {
        case disable
        case enable
        case revokeAccess = "revoke-access"
        case delete
        case promote
        case demote

        var event: AuditEventType {
            switch self {
            case .disable: .userDisabled
            case .enable: .userEnabled
            case .revokeAccess: .userSessionsRevoked
            case .delete: .userDeleted
            case .promote: .userPromoted
            case .demote: .userDemoted
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
        case .delete:
            let keys = try await admin.deleteUser(id: userID, audit: record)
            for key in keys {
                do {
                    try await blobs.delete(key)
                } catch {
                    logger.warning("blob of a deleted user left for the sweep", metadata: ["blob": "\(key)", "error": "\(error)"])
                }
            }
        }
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
            throw AppError(.unprocessableContent, "Use 3 to 64 letters, digits, dots, dashes or underscores for the name.")
        }
        guard name != appKeys.environmentKey.name else {
            throw AppError(.conflict, "That name belongs to the key from the environment.")
        }
        let password = RandomToken.urlSafe(byteCount: 24)
        do {
            try await appKeys.keys.create(name: name, passwordDigest: AppKey(name: name, password: password).passwordDigest, createdBy: actor.id)
        } catch let error as PSQLError where error.isUniqueViolation() {
            throw AppError(.conflict, "An app key with this name already exists.")
        }
        await audit.record(.appKeyCreated, actor: actor.id, targetUser: nil, target: name, origin: origin)
        return password
    }

    public func revokeAppKey(name: String, by actor: User, origin: RequestOrigin) async throws {
        guard try await appKeys.keys.revoke(name: name) else {
            throw AppError(.notFound, "There is no active app key with this name (the environment's key cannot be revoked here).")
        }
        await audit.record(.appKeyRevoked, actor: actor.id, targetUser: nil, target: name, origin: origin)
    }
}
