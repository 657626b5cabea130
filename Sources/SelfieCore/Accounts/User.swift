import Foundation

/// A person with an account. Deliberately holds no password hash: this is what pages and
/// JSON are built from, so nothing secret can leak through it.
public struct User: Sendable, Equatable {
    public enum Role: String, Sendable {
        case user
        case admin
    }

    public let id: Int64
    /// nil for an account made through a provider that shared no email.
    public var email: String?
    /// Optional; 5–30 of `[A-Za-z0-9_]`, unique regardless of case.
    public var username: String?
    public var fullName: String
    public var role: Role
    public var isDisabled: Bool
    public let createdAt: Date
    /// The address was confirmed: by a link mailed to it, or by a provider that vouches for it.
    public var emailVerified: Bool = false
    /// The language, time zone and theme the account is shown in; nil where nothing was chosen.
    public var preferences = AccountPreferences()
}

/// How an account wants to be shown, as stored: a language code (`en`, `de`, `es`), an IANA time
/// zone name, a theme (`system`, `light`, `dark`). The web layer checks the values it writes.
public struct AccountPreferences: Sendable, Equatable {
    public var language: String?
    public var timeZone: String?
    public var theme: String?

    public init(language: String? = nil, timeZone: String? = nil, theme: String? = nil) {
        self.language = language
        self.timeZone = timeZone
        self.theme = theme
    }
}

/// A user together with their bcrypt hash, only ever handed to the code that checks passwords.
/// A session or token is only started while this hash is still the user's current one, and
/// only once the account's second factor, if it has one, is satisfied.
public struct UserCredentials: Sendable {
    public let user: User
    /// nil while an account made through a provider has no password.
    let passwordHash: String?
    public internal(set) var secondFactor: SecondFactorState

    init(user: User, passwordHash: String?, secondFactor: SecondFactorState) {
        self.user = user
        self.passwordHash = passwordHash
        self.secondFactor = secondFactor
    }
}

/// Where a sign-in stands with the account's second factor.
public enum SecondFactorState: Sendable, Equatable {
    /// The account has no authenticator app: the password (or provider) is enough.
    case notEnrolled
    /// The account has one and no code, passkey or remembered browser has answered yet.
    case required
    /// A code, a recovery code or a passkey answered (or the person was already signed in, e.g.
    /// changing their password).
    case satisfied
    /// A remembered browser answered: enough to sign in, but the session it starts is not a
    /// recent proof ("confirm it's you" still asks for the code), or whoever has the browser and
    /// the password could sign out and in again to add a passkey without the phone.
    case rememberedBrowser

    /// Whether a session or token may be started.
    public var allowsSignIn: Bool { self != .required }

    /// Whether a session started now counts as "confirm it's you" for the next ten minutes.
    var confirmsNow: Bool { self != .rememberedBrowser }
}

extension User {
    /// Whether the owner proved the address (or the account has none): until then no passkey,
    /// authenticator app or linked provider can be added, since whoever signed up with someone
    /// else's address must not keep a way in once the real owner claims it.
    public var hasProvenAddress: Bool { email == nil || emailVerified }

    /// Throws `AccountError.confirmAddressFirst` unless `hasProvenAddress`.
    func requireProvenAddress() throws {
        guard hasProvenAddress else { throw AccountError.confirmAddressFirst }
    }

    /// How the user is named in logs, audit entries and admin pages: the email, else the username.
    public var handle: String { email ?? username.map { "@\($0)" } ?? "user #\(id)" }

    /// What failed sign-ins of this account are counted under: its email, else its username (the
    /// two things a sign-in form accepts), so typing one or the other gains nothing. An account
    /// with neither (made by a provider that shared no address) gets a key no login can be: it
    /// begins with a tab, which a typed login never does (it is trimmed of all whitespace) and
    /// which the counters' `lower(btrim())` keeps (it trims spaces only) — typing its `handle`, or
    /// the key itself, must not lock it out.
    var lockoutKey: String { email ?? username ?? "\taccount \(id)" }

    /// The columns every query that reads a user selects, in this order, from `users` aliased `u`.
    static let columns = "u.id, u.email, u.username, u.full_name, u.role, u.disabled, u.created_at, u.email_verified, u.language, u.time_zone, u.theme"

    /// A user as read through `columns`.
    typealias Row = (Int64, String?, String?, String, String, Bool, Date, Bool, String?, String?, String?)

    init(row: Row) {
        let (id, email, username, fullName, role, disabled, createdAt, emailVerified, language, timeZone, theme) = row
        self.init(
            id: id,
            email: email,
            username: username,
            fullName: fullName,
            role: Role(rawValue: role) ?? .user,
            isDisabled: disabled,
            createdAt: createdAt,
            emailVerified: emailVerified,
            preferences: AccountPreferences(language: language, timeZone: timeZone, theme: theme)
        )
    }
}
