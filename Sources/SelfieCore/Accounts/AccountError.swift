/// Account operations that were refused for a reason the person can act on. The surfaces (web
/// pages, API) choose the status and the words; the core only says what happened.
public enum AccountError: Error, Equatable, Sendable {
    /// Unknown login, wrong password, no password, or a disabled account: deliberately one case,
    /// so nothing tells them apart.
    case invalidCredentials
    /// A provider sign-in reached an account that an admin disabled.
    case disabled
    /// The password was right, but `REQUIRE_VERIFIED_EMAIL` makes sign-in wait until the address
    /// is confirmed; `linkMailed`: a new link went out now (false: the day's limit for links was
    /// reached, and the page must not say one did).
    case emailNotVerified(String, linkMailed: Bool)
    /// A mailed link that is unknown, used, or expired: nothing was changed.
    case linkNotValid
    /// The last administrator cannot delete their own account.
    case lastAdministrator
    /// A sensitive change needs proof from the last ten minutes (`StepUp`): the password typed
    /// again, or for an account without one, a fresh sign-in.
    case confirmItsYou
    /// Passkeys, two-step verification and linked providers wait until the account's address is
    /// confirmed: nothing added before the owner proved the address may outlive that proof.
    case confirmAddressFirst
    /// A confirmation link opened where nobody is signed in to its account, for an account with no
    /// password to type instead: only a sign-in shows the account is theirs.
    case signInToUseLink
    /// "Download my data" while another export of the account is still being written.
    case exportInProgress
}

/// A field of an account form or API request that the core validates.
public enum Field: String, Sendable, CaseIterable {
    case fullName
    case email
    case username
    case password
    case passwordConfirmation
    case currentPassword
    case newPassword
    case newPasswordConfirmation
}

/// Why a field's value was refused: a machine-readable code; the surfaces word it.
public enum FieldProblem: Equatable, Sendable {
    case missing
    case tooLong(maxCharacters: Int)
    case controlCharacters
    case notAnEmailAddress
    /// An address with letters outside ASCII: mail to it cannot be sent.
    case notASCII
    case wrongLength(ClosedRange<Int>)
    /// A username with characters other than `A–Z a–z 0–9 _`.
    case disallowedCharacters
    case passwordTooShort(minCharacters: Int)
    /// bcrypt reads only 72 bytes: longer passwords are refused rather than truncated.
    case passwordTooLong(maxBytes: Int)
    case confirmationMismatch
    /// A unique index refused it (another account has this email or username).
    case taken
    /// The current password given to confirm a change is not the account's.
    case incorrect
    /// An account with neither email nor username must choose a username with its first password.
    case requiredWithoutEmail
    /// The same value as now (a "new" address that is the current one).
    case unchanged
}

/// Input refused, field by field. Thrown whole, so a form shows every problem at once.
public struct InvalidFields: Error, Equatable, Sendable {
    public var problems: [Field: FieldProblem]

    public init(_ problems: [Field: FieldProblem] = [:]) {
        self.problems = problems
    }

    public var isEmpty: Bool { problems.isEmpty }

    public subscript(field: Field) -> FieldProblem? {
        get { problems[field] }
        set { problems[field] = newValue }
    }
}
