import Logging
import PostgresNIO

/// A change made by an admin (or by the command line, or by someone deleting their own account),
/// and the audit record of it. Its transaction (`PostgresClient.transaction(as:)`) first locks
/// every enabled admin, so the one acting must still be an admin when the change runs, and a
/// change that takes an admin away must leave one: two admins acting on each other at the same
/// moment cannot leave none, and an admin demoted or disabled while their request was on its way
/// cannot act once it arrives. The record commits with the change.
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

    /// Locks the enabled admins, always in id order (two admins acting on each other queue up
    /// instead of deadlocking), and refuses the act if the actor is not among them or it would
    /// leave none.
    fileprivate func begin(on connection: PostgresConnection, logger: Logger) async throws {
        var admins: [Int64] = []
        for try await id in try await connection.query(
            "SELECT id FROM users WHERE role = 'admin' AND NOT disabled ORDER BY id FOR UPDATE",
            logger: logger
        ).decode(Int64.self) {
            admins.append(id)
        }
        if actorMustBeAdmin, let actor = record.actor, !admins.contains(actor) { throw AdminError.notAnAdmin }
        if let removingAdmin, admins == [removingAdmin] { throw AdminError.lastAdmin }
    }
}

extension PostgresClient {
    /// `transaction(logger:_:)` for an admin's act: it begins with the act's checks (an
    /// `AdminError` thrown as it is), and ends by recording it. With `act` nil (the same change
    /// made by its owner), a plain transaction.
    func transaction<Result: Sendable>(
        as act: AdminAct?,
        logger: Logger,
        _ body: (PostgresConnection, _ record: inout AuditRecord?) async throws -> Result
    ) async throws -> Result {
        do {
            return try await transaction(logger: logger) { connection in
                try await act?.begin(on: connection, logger: logger)
                var record = act?.record
                let result = try await body(connection, &record)
                if let record { try await connection.query(record.insertQuery, logger: logger) }
                return result
            }
        } catch let error as TransactionError {
            if let refusal = error.closureError as? AdminError { throw refusal }
            throw error
        }
    }
}
