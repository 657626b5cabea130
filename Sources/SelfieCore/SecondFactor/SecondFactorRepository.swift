import Foundation
import Logging
import PostgresNIO

/// An account's authenticator app as stored.
struct TOTPFactor: Sendable {
    let sealedSecret: [UInt8]
    let isConfirmed: Bool
    let lastUsedStep: UInt64?
}

/// A sign-in whose password (or provider) was right, waiting for its code.
struct PendingSignIn: Sendable {
    let userID: Int64
    let passwordHash: String?
    let returnTo: String
    /// The provider's identity to link once the code is given (it found the account by address).
    let linking: SocialIdentity?
}

/// The tables of the authenticator app, recovery codes, remembered browsers and pending sign-ins.
/// Every "use once" rule is one conditional UPDATE or DELETE, so two instances (or two requests)
/// racing with the same code cannot both win.
struct SecondFactorRepository: Sendable {
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }

    func totp(userID: Int64) async throws -> TOTPFactor? {
        let rows = try await client.query(
            "SELECT secret_sealed, confirmed_at IS NOT NULL, last_used_step FROM totp_factors WHERE user_id = \(userID)",
            logger: logger
        )
        for try await (sealed, confirmed, step) in rows.decode((ByteBuffer, Bool, Int64?).self) {
            return TOTPFactor(sealedSecret: Array(buffer: sealed), isConfirmed: confirmed, lastUsedStep: step.map { UInt64($0) })
        }
        return nil
    }

    /// Whether the app is on, with the unused recovery codes and live remembered browsers: one round trip.
    func status(userID: Int64) async throws -> (isEnabled: Bool, unusedRecoveryCodes: Int, rememberedBrowsers: Int) {
        let rows = try await client.query(
            """
            SELECT EXISTS (SELECT 1 FROM totp_factors WHERE user_id = \(userID) AND confirmed_at IS NOT NULL),
                   (SELECT count(*)::int FROM recovery_codes WHERE user_id = \(userID) AND used_at IS NULL),
                   (SELECT count(*)::int FROM remembered_browsers WHERE user_id = \(userID) AND expires_at > now())
            """,
            logger: logger
        )
        for try await (enabled, codes, browsers) in rows.decode((Bool, Int, Int).self) {
            return (enabled, enabled ? codes : 0, enabled ? browsers : 0)
        }
        return (false, 0, 0)
    }

    /// Stores a secret being set up; false when the account's app is already confirmed.
    func saveUnconfirmed(userID: Int64, sealedSecret: [UInt8]) async throws -> Bool {
        let rows = try await client.query(
            """
            INSERT INTO totp_factors (user_id, secret_sealed) VALUES (\(userID), \(ByteBuffer(bytes: sealedSecret)))
            ON CONFLICT (user_id) DO UPDATE SET secret_sealed = excluded.secret_sealed, created_at = now(), last_used_step = NULL
            WHERE totp_factors.confirmed_at IS NULL
            RETURNING 1
            """,
            logger: logger
        )
        for try await _ in rows { return true }
        return false
    }

    /// Turns the app on (its first code's step is used up) with fresh recovery codes.
    func confirm(userID: Int64, step: UInt64, recoveryCodeHashes: [[UInt8]], notifying notice: PendingNotice?) async throws -> Bool {
        try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                UPDATE totp_factors SET confirmed_at = now(), last_used_step = \(Int64(step))
                WHERE user_id = \(userID) AND confirmed_at IS NULL RETURNING 1
                """,
                logger: logger
            )
            var confirmed = false
            for try await _ in rows { confirmed = true }
            guard confirmed else { return false }
            try await Self.replaceRecoveryCodes(userID: userID, hashes: recoveryCodeHashes, on: connection, logger: logger)
            try await notice?.queue(on: connection, logger: logger)
            return true
        }
    }

    /// Accepts a time step only if it is later than the last one accepted (no replay, even by
    /// two requests at once).
    func claimStep(userID: Int64, step: UInt64) async throws -> Bool {
        let rows = try await client.query(
            """
            UPDATE totp_factors SET last_used_step = \(Int64(step))
            WHERE user_id = \(userID) AND confirmed_at IS NOT NULL AND (last_used_step IS NULL OR last_used_step < \(Int64(step)))
            RETURNING 1
            """,
            logger: logger
        )
        for try await _ in rows { return true }
        return false
    }

    /// Marks an unused recovery code used; false if there is no such unused code.
    func useRecoveryCode(userID: Int64, hash: [UInt8]) async throws -> Bool {
        let rows = try await client.query(
            """
            UPDATE recovery_codes SET used_at = now()
            WHERE user_id = \(userID) AND code_hash = \(ByteBuffer(bytes: hash)) AND used_at IS NULL
            RETURNING 1
            """,
            logger: logger
        )
        for try await _ in rows { return true }
        return false
    }

    func replaceRecoveryCodes(userID: Int64, hashes: [[UInt8]], notifying notice: PendingNotice?) async throws {
        try await client.transaction(logger: logger) { connection in
            try await Self.replaceRecoveryCodes(userID: userID, hashes: hashes, on: connection, logger: logger)
            try await notice?.queue(on: connection, logger: logger)
        }
    }

    private static func replaceRecoveryCodes(userID: Int64, hashes: [[UInt8]], on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM recovery_codes WHERE user_id = \(userID)", logger: logger)
        try await connection.query(
            "INSERT INTO recovery_codes (user_id, code_hash) SELECT \(userID), unnest(\(hashes.map { ByteBuffer(bytes: $0) })::bytea[])",
            logger: logger
        )
    }

    /// Removes the app, its recovery codes and remembered browsers (and, for an admin's reset,
    /// the passkeys), together.
    /// With `includingPasskeys`, refused (`SecondFactorError.lastWayIn`, nothing removed) when the
    /// passkeys are the account's only way in and it has no address for a reset link
    /// (`WaysIn.passkeysAreLastResort`). `act`: an admin's reset, checked and audited with it.
    func removeAll(userID: Int64, includingPasskeys: Bool, as act: AdminAct? = nil, notifying notice: PendingNotice?) async throws {
        let logger = self.logger
        do {
            try await client.transaction(as: act, logger: logger) { connection, _ in
                if includingPasskeys {
                    let waysIn = try await UserAccess.lockWaysIn(userID: userID, on: connection, logger: logger)
                    if let waysIn, waysIn.passkeysAreLastResort { throw SecondFactorError.lastWayIn }
                }
                try await connection.query("DELETE FROM totp_factors WHERE user_id = \(userID)", logger: logger)
                try await connection.query("DELETE FROM recovery_codes WHERE user_id = \(userID)", logger: logger)
                try await connection.query("DELETE FROM remembered_browsers WHERE user_id = \(userID)", logger: logger)
                if includingPasskeys {
                    try await connection.query("DELETE FROM passkeys WHERE user_id = \(userID)", logger: logger)
                }
                try await notice?.queue(on: connection, logger: logger)
            }
        } catch let error as TransactionError {
            if let refusal = error.closureError as? SecondFactorError { throw refusal }
            throw error
        }
    }

    // MARK: Remembered browsers

    func rememberBrowser(userID: Int64, tokenHash: [UInt8], expiresAt: Date) async throws {
        try await client.query(
            "INSERT INTO remembered_browsers (token_hash, user_id, expires_at) VALUES (\(ByteBuffer(bytes: tokenHash)), \(userID), \(expiresAt))",
            logger: logger
        )
    }

    func isRemembered(userID: Int64, tokenHash: [UInt8]) async throws -> Bool {
        let rows = try await client.query(
            """
            SELECT 1 FROM remembered_browsers
            WHERE token_hash = \(ByteBuffer(bytes: tokenHash)) AND user_id = \(userID) AND expires_at > now()
            """,
            logger: logger
        )
        for try await _ in rows { return true }
        return false
    }

    func forgetBrowsers(userID: Int64) async throws {
        try await client.query("DELETE FROM remembered_browsers WHERE user_id = \(userID)", logger: logger)
    }

    // MARK: Pending sign-ins

    func createPending(tokenHash: [UInt8], _ pending: PendingSignIn, expiresAt: Date) async throws {
        let link = pending.linking
        try await client.query(
            """
            INSERT INTO pending_sign_ins (token_hash, user_id, password_hash, return_to, expires_at,
                                          link_provider, link_issuer, link_subject, link_email, link_name)
            VALUES (\(ByteBuffer(bytes: tokenHash)), \(pending.userID), \(pending.passwordHash), \(pending.returnTo), \(expiresAt),
                    \(link?.provider), \(link?.issuer), \(link?.subject), \(link?.email), \(link?.name))
            """,
            logger: logger
        )
    }

    func pending(tokenHash: [UInt8]) async throws -> PendingSignIn? {
        let rows = try await client.query(
            """
            SELECT user_id, password_hash, return_to, link_provider, link_issuer, link_subject, link_email, link_name
            FROM pending_sign_ins WHERE token_hash = \(ByteBuffer(bytes: tokenHash)) AND expires_at > now()
            """,
            logger: logger
        )
        for try await (userID, passwordHash, returnTo, provider, issuer, subject, email, name)
            in rows.decode((Int64, String?, String, String?, String?, String?, String?, String?).self)
        {
            var linking: SocialIdentity?
            if let provider, let issuer, let subject {
                // Parked only when the provider vouched for the address (`emailVerified`).
                linking = SocialIdentity(provider: provider, issuer: issuer, subject: subject, email: email, emailVerified: true, name: name)
            }
            return PendingSignIn(userID: userID, passwordHash: passwordHash, returnTo: returnTo, linking: linking)
        }
        return nil
    }

    func deletePending(tokenHash: [UInt8]) async throws {
        try await client.query("DELETE FROM pending_sign_ins WHERE token_hash = \(ByteBuffer(bytes: tokenHash))", logger: logger)
    }

    func deleteExpired() async throws {
        try await client.query("DELETE FROM pending_sign_ins WHERE expires_at < now()", logger: logger)
        try await client.query("DELETE FROM remembered_browsers WHERE expires_at < now()", logger: logger)
        try await client.query("DELETE FROM webauthn_challenges WHERE expires_at < now()", logger: logger)
        try await client.query(
            "DELETE FROM totp_factors WHERE confirmed_at IS NULL AND created_at < now() - interval '1 day'",
            logger: logger
        )
    }
}
