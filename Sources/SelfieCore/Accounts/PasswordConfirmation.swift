import Logging

/// Checks the password a signed-in person types to confirm a sensitive change (a new password, a
/// new address, deleting the account). Counted like a sign-in: the account's lockout applies, so
/// a stolen session cannot guess the password faster than the sign-in form allows. With two-step
/// verification on, a right password takes back only its own attempt: the failures of wrong
/// codes stay counted until a right code clears them (else a thief who knows the password could
/// send it between guesses of the code and never be locked out).
struct PasswordConfirmation: Sendable {
    let hasher: PasswordHasher
    let protection: BruteForceProtection
    let audit: AuditRepository

    /// Whether `password` matches the account's hash; throws `RateLimited` while the account is locked.
    func check(_ password: String, against hash: String, of credentials: UserCredentials, origin: RequestOrigin) async throws -> Bool {
        let user = credentials.user
        do {
            try await protection.claimAttempt(account: user.lockoutKey)
        } catch let error as RateLimited {
            await audit.record(.signInLocked, actor: user.id, targetUser: user.id, target: "current password", origin: origin)
            throw error
        }
        guard try await hasher.verify(password, against: hash) else {
            AppMetrics.signInFailed()
            await audit.record(.passwordCheckFailed, actor: user.id, targetUser: user.id, target: user.handle, origin: origin)
            return false
        }
        if credentials.secondFactor == .notEnrolled {
            try await protection.clearFailures(account: user.lockoutKey)
        } else {
            try await protection.takeBackAttempt(account: user.lockoutKey)
        }
        return true
    }
}
