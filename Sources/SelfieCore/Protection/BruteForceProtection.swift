import Foundation
import Logging

/// Limits on guessing, from the environment. A limit of 0 turns that protection off.
public struct ProtectionConfiguration: Sendable, Equatable {
    /// Failed sign-ins for one account within `lockoutWindow` that lock it (web and API together).
    public var lockoutThreshold: Int = 5
    public var lockoutWindow: Duration = .seconds(900)
    /// Per client address.
    public var signInsPerMinute: Int = 20
    public var signUpsPerHour: Int = 20
    public var uploadsPerHour: Int = 300
    /// Per account: confirmation links mailed a day (the "send again" button).
    public var verificationMailsPerDay: Int = 5
    /// Per address: password reset links mailed an hour, whoever asks.
    public var resetMailsPerHour: Int = 3

    public init() {}

    /// Everything off (for local test runs that sign in hundreds of times from one address).
    public static let off: ProtectionConfiguration = {
        var configuration = ProtectionConfiguration()
        configuration.lockoutThreshold = 0
        configuration.signInsPerMinute = 0
        configuration.signUpsPerHour = 0
        configuration.uploadsPerHour = 0
        configuration.verificationMailsPerDay = 0
        configuration.resetMailsPerHour = 0
        return configuration
    }()

    static func load(value: (String) -> String?, problems: inout [String]) -> ProtectionConfiguration {
        var configuration = ProtectionConfiguration()
        func number(_ name: String, into target: inout Int) {
            guard let raw = value(name) else { return }
            if let parsed = Int(raw), parsed >= 0 { target = parsed } else { problems.append("\(name) must be a whole number ≥ 0 (0 turns it off), got \"\(raw)\"") }
        }
        number("LOCKOUT_THRESHOLD", into: &configuration.lockoutThreshold)
        var window = 900
        number("LOCKOUT_WINDOW_SECONDS", into: &window)
        configuration.lockoutWindow = .seconds(max(window, 1))
        number("RATE_LIMIT_SIGN_INS_PER_MINUTE", into: &configuration.signInsPerMinute)
        number("RATE_LIMIT_SIGN_UPS_PER_HOUR", into: &configuration.signUpsPerHour)
        number("RATE_LIMIT_UPLOADS_PER_HOUR", into: &configuration.uploadsPerHour)
        number("RATE_LIMIT_VERIFICATION_MAILS_PER_DAY", into: &configuration.verificationMailsPerDay)
        number("RATE_LIMIT_RESET_MAILS_PER_HOUR", into: &configuration.resetMailsPerHour)
        return configuration
    }
}

/// Too many attempts: try again in `retryAfter` seconds.
public struct RateLimited: Error, Equatable, Sendable {
    public enum Scope: Sendable {
        /// Too many failed sign-ins (or password checks) for one account.
        case account
        /// Too many attempts from one client address.
        case address
        /// Too many of one account's requests of a kind (links mailed, exports), wherever from.
        case user
        /// Too many wrong passwords for one share link.
        case shareLink
    }

    public let scope: Scope
    /// Seconds until the window that refused the attempt ends (at least 1).
    public let retryAfter: Int

    public init(scope: Scope, retryAfter: Int) {
        self.scope = scope
        self.retryAfter = max(retryAfter, 1)
    }
}

/// Per-account lockout and per-address rate limits, counted in PostgreSQL so every instance agrees.
public struct BruteForceProtection: Sendable {
    public enum Action: String, Sendable {
        case signIn = "sign-in"
        case signUp = "sign-up"
        case upload
        /// Confirmation links mailed for one account (`user:<id>`): five a day.
        case verificationMail = "verification-mail"
        /// Password reset links mailed to one address (`email:<address>`): three an hour.
        case passwordResetMail = "reset-mail"
        /// Forgotten-password requests from one client address.
        case passwordResetRequest = "reset-request"
        /// "Someone tried to sign up with your address" to one address (`email:<address>`): one a
        /// day, whatever the configuration.
        case signUpAttemptNotice = "sign-up-notice"
        /// "Download my data" by one account (`user:<id>`): three an hour, whatever the configuration.
        case dataExport = "data-export"
        /// Share-link passwords tried from one client address (at the sign-in rate).
        case shareLinkPassword = "share-link-password"
        /// A share link's photos as one ZIP, by one client address: five a minute, whatever the
        /// configuration.
        case shareLinkDownload = "share-link-download"
    }

    let configuration: ProtectionConfiguration
    let counters: ProtectionCounterRepository

    public init(configuration: ProtectionConfiguration, counters: ProtectionCounterRepository) {
        self.configuration = configuration
        self.counters = counters
    }

    /// Claims one sign-in attempt for the account (existing or not), before its password is
    /// checked: the attempt is counted as a failure at once (a success clears the count), under a
    /// per-account lock, so guesses sent in parallel cannot all slip past the threshold. Throws
    /// while the account has too many recent failures.
    public func claimAttempt(account email: String) async throws {
        guard configuration.lockoutThreshold > 0 else { return }
        let window = Int(configuration.lockoutWindow.components.seconds)
        if let secondsLeft = try await counters.claimFailure(account: email, window: window, threshold: configuration.lockoutThreshold) {
            throw RateLimited(scope: .account, retryAfter: secondsLeft)
        }
    }

    /// An attempt claimed for a check that passed, while something else is still owed (a code):
    /// that one attempt is no longer counted; earlier failures stay.
    public func takeBackAttempt(account email: String) async throws {
        guard configuration.lockoutThreshold > 0 else { return }
        try await counters.removeNewestFailure(account: email)
    }

    /// A successful sign-in: the account's count starts again.
    public func clearFailures(account email: String) async throws {
        guard configuration.lockoutThreshold > 0 else { return }
        try await counters.clearFailures(account: email)
    }

    /// Counts one `action` of the user's account, whatever address it comes from; throws (scope
    /// `.user`) once the window's limit is passed.
    public func consume(_ action: Action, user userID: Int64) async throws {
        do {
            try await consume(action, client: "user:\(userID)")
        } catch let limited as RateLimited {
            throw RateLimited(scope: .user, retryAfter: limited.retryAfter)
        }
    }

    /// Counts one attempt at `action` from `client` (an IPv6 client by its /64); throws once the
    /// window's limit is passed.
    public func consume(_ action: Action, client clientAddress: String) async throws {
        let address = ClientAddress.rateLimitKey(for: clientAddress)
        let (limit, window): (Int, Int) = switch action {
        case .signIn: (configuration.signInsPerMinute, 60)
        case .signUp: (configuration.signUpsPerHour, 3600)
        case .upload: (configuration.uploadsPerHour, 3600)
        case .verificationMail: (configuration.verificationMailsPerDay, 86400)
        case .passwordResetMail: (configuration.resetMailsPerHour, 3600)
        case .passwordResetRequest: (configuration.signInsPerMinute, 60)
        case .signUpAttemptNotice: (1, 86400)
        case .dataExport: (3, 3600)
        case .shareLinkPassword: (configuration.signInsPerMinute, 60)
        case .shareLinkDownload: (5, 60)
        }
        guard limit > 0 else { return }
        let (hits, secondsLeft) = try await counters.count(action.rawValue, client: address, window: window, limit: limit)
        if hits > limit { throw RateLimited(scope: .address, retryAfter: secondsLeft) }
    }

    /// Forgets counters and failures older than any window.
    public func deleteExpired() async throws {
        try await counters.deleteExpired()
    }
}
