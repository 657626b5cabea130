/// A change made by an admin (or by the command line, or by someone deleting their own account),
/// and the audit record of it. Its transaction (`PostgresClient.transaction(as:)`) first locks
/// every enabled admin, so the one acting must still be an admin when the change runs, and a
/// change that takes an admin away must leave one: two admins acting on each other at the same
/// moment cannot leave none, and an admin demoted or disabled while their request was on its way
/// cannot act once it arrives. The record commits with the change. (The SQL: `AdminRepository.swift`.)
struct AdminAct: Sendable {
    let record: AuditRecord
    /// Whose admin role or enabled account the change takes away (refused for the last admin).
    let removingAdmin: Int64?
    /// Whether `record.actor` must be an admin: not for the command line (no actor), nor for
    /// someone deleting their own account.
    let actorMustBeAdmin: Bool

    /// An admin's act (`record.actor`), or the command line's (no actor).
    init(_ record: AuditRecord, removingAdmin: Int64? = nil) {
        self.record = record
        self.removingAdmin = removingAdmin
        self.actorMustBeAdmin = record.actor != nil
    }

    /// Someone deleting their own account: they need not be an admin, but if they are, not the last.
    static func deletingOwnAccount(_ record: AuditRecord, userID: Int64) -> AdminAct {
        AdminAct(record: record, removingAdmin: userID, actorMustBeAdmin: false)
    }

    private init(record: AuditRecord, removingAdmin: Int64?, actorMustBeAdmin: Bool) {
        self.record = record
        self.removingAdmin = removingAdmin
        self.actorMustBeAdmin = actorMustBeAdmin
    }
}
