import Foundation
import Logging

/// People deleting their own account (the account page, `POST /api/delete_account`): confirmed
/// by the password, or — for an account without one — by a sign-in in the last ten minutes
/// (`StepUp`). Every
/// photo and every blob goes, every session and token ends, an audit event is written with the
/// deletion, and a goodbye goes to the address. The last administrator cannot delete themself.
public struct AccountDeletion: Sendable {
    let users: UserRepository
    let admin: AdminRepository
    let blobDeletions: BlobDeletions
    let emails: AccountEmails
    let passwordCheck: PasswordConfirmation
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }

    init(users: UserRepository, admin: AdminRepository, blobDeletions: BlobDeletions, emails: AccountEmails, logger: Logger) {
        self.users = users
        self.admin = admin
        self.blobDeletions = blobDeletions
        self.emails = emails
        self.passwordCheck = emails.passwordCheck
        self.scopedLogger = ScopedLogger(logger)
    }

    /// Deletes the account. A wrong password is `InvalidFields` (`.currentPassword: .incorrect`);
    /// an account without a password not confirmed recently is `AccountError.confirmItsYou`.
    public func delete(_ user: User, password: String, confirmedAt: Date, origin: RequestOrigin) async throws {
        guard let credentials = try await users.credentials(forID: user.id) else { throw AccountError.invalidCredentials }
        if let hash = credentials.passwordHash {
            guard try await passwordCheck.check(password, against: hash, of: credentials, origin: origin) else {
                throw InvalidFields([.currentPassword: .incorrect])
            }
        } else {
            try StepUp.require(confirmedAt: confirmedAt)
        }
        let record = AuditRecord(type: .accountDeleted, actor: user.id, targetUser: user.id, target: user.handle, origin: origin)
        let keys: [BlobKey]
        do {
            keys = try await admin.deleteUser(
                id: user.id, act: .deletingOwnAccount(record, userID: user.id), goodbye: emails.pending(.accountDeleted, to: credentials.user)
            )
        } catch AdminError.lastAdmin {
            throw AccountError.lastAdministrator
        }
        emails.nudge()
        await blobDeletions.drain(keys)
    }
}
