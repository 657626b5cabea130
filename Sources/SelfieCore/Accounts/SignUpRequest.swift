import Foundation

/// What someone types into a sign-up form (web) or sends to `/api/signup`.
public struct SignUpRequest: Sendable {
    public var fullName: String
    public var email: String
    /// Optional (nil when left empty).
    public var username: String?
    public var password: String
    /// nil when the client has no confirmation field (the iOS app).
    public var passwordConfirmation: String?
    /// The register/login API's password registration names a username only; everywhere else an
    /// email is required.
    public var requiresEmail = true
    /// The language of the page the form was sent from, if the browser named one of Selfie's: kept
    /// on the account, so the confirmation mail is already written in it.
    public var language: String?

    public static let maximumNameCharacters = 100

    public init(fullName: String, email: String, username: String? = nil, password: String, passwordConfirmation: String?) {
        self.fullName = fullName.trimmingCharacters(in: .whitespacesAndNewlines)
        self.email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        let username = username?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        self.username = username.isEmpty ? nil : username
        self.password = password
        self.passwordConfirmation = passwordConfirmation
    }

    func validate() -> InvalidFields {
        var problems = InvalidFields()
        if fullName.isBlankWhenShown {
            problems[.fullName] = .missing
        } else if fullName.unicodeScalars.count > Self.maximumNameCharacters {  // as PostgreSQL's length() counts
            problems[.fullName] = .tooLong(maxCharacters: Self.maximumNameCharacters)
        } else if fullName.containsControlCharacters || fullName.containsDirectionOverrides {
            problems[.fullName] = .controlCharacters
        }
        if email.isEmpty, !requiresEmail, username != nil {
            // A username-only account.
        } else if let problem = EmailAddress.problem(with: email) {
            problems[.email] = problem
        }
        if let username, let problem = Username.problem(with: username) {
            problems[.username] = problem
        }
        if let problem = PasswordPolicy.problem(with: password) {
            problems[.password] = problem
        } else if let confirmation = passwordConfirmation, confirmation != password {
            problems[.passwordConfirmation] = .confirmationMismatch
        }
        return problems
    }
}

/// 5–30 characters of `[A-Za-z0-9_]` (the register/login API's rule). No `@`, so a sign-in field
/// can hold either an email or a username without ambiguity.
public enum Username {
    public static let length = 5...30

    public static func problem(with username: String) -> FieldProblem? {
        guard length.contains(username.utf8.count) else { return .wrongLength(length) }
        let allowed = username.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
        return allowed ? nil : .disallowedCharacters
    }
}

/// What someone typed as their login, as it may be kept in the audit log: a well-formed email,
/// or a username that names an account. Anything else is never stored: a password typed into the
/// login field (often shaped like a username: `sunshine2024`) must not stay in a log that is kept.
enum AttemptedLogin {
    static let unrecognised = "(not an email or username)"
    static let noSuchUsername = "(a username of no account)"

    static func auditable(_ login: String, account: UserCredentials?) -> String {
        if login.contains("@") { return EmailAddress.isPlausible(login) ? login : unrecognised }
        guard Username.problem(with: login) == nil else { return unrecognised }
        return account == nil ? noSuchUsername : login
    }
}

extension String {
    /// C0 controls (NUL included) and DEL: never part of a name, an email or a password, and
    /// NUL would be cut off by bcrypt's C string or refused by PostgreSQL.
    public var containsControlCharacters: Bool {
        unicodeScalars.contains(where: \.isControlCharacter)
    }

    /// Text shown to other people (a name on the admin pages, an album's title or a caption on a
    /// share page) that turns what follows it around: the bidirectional embeddings, overrides and
    /// isolates (U+202A–202E, U+2066–2069), which make "Eve\u{202E}moc.elpmaxe" read as another
    /// address. The marks right-to-left writing needs (U+200E, U+200F) are not among them.
    public var containsDirectionOverrides: Bool {
        unicodeScalars.contains(where: \.isDirectionOverride)
    }

    /// Nothing to see: only spaces and invisible format characters (a zero-width space, say), so
    /// that a name of "\u{200B}" is as missing as an empty one.
    public var isBlankWhenShown: Bool {
        unicodeScalars.allSatisfy { $0.properties.isWhitespace || $0.properties.generalCategory == .format }
    }
}

extension Unicode.Scalar {
    /// What `containsControlCharacters` looks for.
    var isControlCharacter: Bool { value < 0x20 || value == 0x7F }
    /// What `containsDirectionOverrides` looks for.
    var isDirectionOverride: Bool { (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) }
}
