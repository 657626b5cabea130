import Foundation

/// "Confirm it's you": a sensitive change (password, address, passkeys, two-step verification,
/// recovery codes, linked providers, deleting the account, a copy of the data) needs proof from
/// the last ten minutes that the person at the keyboard is the account's owner — the password typed
/// again (in the form itself, or on the "confirm it's you" page), or for an account without a
/// password a fresh sign-in (password, passkey or provider). A browser left open or a stolen
/// session cookie is not enough.
public struct StepUp: Sendable {
    /// How long a proof counts.
    public static let window: TimeInterval = 600

    let users: UserRepository
    let sessions: WebSessionRepository
    let passwordCheck: PasswordConfirmation
    /// An account with two-step verification confirms with its code too: otherwise a thief who
    /// knows the password could confirm, add a passkey, and sign in later without the code.
    let secondFactor: SecondFactorService

    /// Whether a proof made at `confirmedAt` still counts.
    public static func isRecent(_ confirmedAt: Date, now: Date = .now) -> Bool {
        now.timeIntervalSince(confirmedAt) < window
    }

    /// Throws `AccountError.confirmItsYou` unless the proof made at `confirmedAt` still counts.
    public static func require(confirmedAt: Date) throws {
        guard isRecent(confirmedAt) else { throw AccountError.confirmItsYou }
    }

    /// Whether confirming also asks for a code (the account has two-step verification on).
    public func needsCode(_ user: User) async throws -> Bool {
        try await secondFactor.status(of: user).isEnabled
    }

    /// The password typed again on the "confirm it's you" page — with a current code (or an unused
    /// recovery code) when two-step verification is on: the session counts as confirmed for the next
    /// ten minutes. A wrong password is `InvalidFields` (`.currentPassword: .incorrect`), a wrong
    /// code `SecondFactorError.incorrectCode`; both count toward the account's lockout. An account
    /// without a password confirms by signing in again instead (`AccountError.confirmItsYou`).
    public func confirm(_ session: ActiveSession, password: String, code: String?, origin: RequestOrigin) async throws {
        guard let credentials = try await users.credentials(forID: session.user.id), let hash = credentials.passwordHash else {
            throw AccountError.confirmItsYou
        }
        guard try await passwordCheck.check(password, against: hash, of: credentials, origin: origin) else {
            throw InvalidFields([.currentPassword: .incorrect])
        }
        if try await needsCode(session.user) {
            try await secondFactor.requireCode((code ?? "").trimmingCharacters(in: .whitespacesAndNewlines), of: session.user, origin: origin)
        }
        try await sessions.markConfirmed(sessionID: session.sessionID)
    }
}
