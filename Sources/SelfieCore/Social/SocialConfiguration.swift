import Foundation

/// An OpenID Connect provider Selfie accepts ID tokens from (Apple, Google, or any issuer).
public struct OIDCProviderConfiguration: Sendable, Equatable {
    /// The name in URLs and in `/api/social/signin` (`apple`, `google`, `oidc`).
    public var name: String
    /// What the button says: "Continue with …".
    public var displayName: String
    /// The issuer; its discovery document is at `issuer/.well-known/openid-configuration`.
    public var issuer: String
    /// Other spellings of `iss` the issuer uses (Google: `accounts.google.com`).
    public var alternativeIssuers: [String] = []
    /// Accepted audiences: the first is the web client of the code flow, others are app bundle ids.
    public var clientIDs: [String]
    /// The web client's secret for the code flow (nil: a public client using PKCE alone).
    public var clientSecret: String?
    /// Apple returns to the callback with a POST when name or email is asked for.
    public var usesFormPost = false
    /// Whether this issuer's `email_verified` is trusted to sign a person in to the account that
    /// has that (verified) address. On for Apple and Google; for another issuer only when
    /// `OIDC_TRUST_VERIFIED_EMAIL=true`. Untrusted, an address is kept on the identity only.
    public var trustsVerifiedEmail = false
    public var scopes = "openid email profile"

    public init(name: String, displayName: String, issuer: String, clientIDs: [String], clientSecret: String? = nil) {
        self.name = name
        self.displayName = displayName
        self.issuer = issuer
        self.clientIDs = clientIDs
        self.clientSecret = clientSecret
    }

    var acceptedIssuers: [String] { [issuer] + alternativeIssuers }
    /// The issuer is compared exactly as configured (some end in "/"); the path is joined without it.
    var discoveryURL: String { (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration" }
}

/// Facebook Login: access tokens checked with the Graph API.
public struct FacebookConfiguration: Sendable, Equatable {
    public var appID: String
    public var appSecret: String
    public var graphURL: String

    public init(appID: String, appSecret: String, graphURL: String = "https://graph.facebook.com") {
        self.appID = appID
        self.appSecret = appSecret
        self.graphURL = graphURL
    }
}

/// Sign in with Twitter/X: OAuth 1.0a user tokens checked with `account/verify_credentials`.
public struct TwitterConfiguration: Sendable, Equatable {
    public var consumerKey: String
    public var consumerSecret: String
    public var apiURL: String

    public init(consumerKey: String, consumerSecret: String, apiURL: String = "https://api.twitter.com/1.1") {
        self.consumerKey = consumerKey
        self.consumerSecret = consumerSecret
        self.apiURL = apiURL
    }
}

/// Which providers people may sign in with; each is off until its client id is set.
public struct SocialConfiguration: Sendable, Equatable {
    public var oidc: [OIDCProviderConfiguration] = []
    public var facebook: FacebookConfiguration?
    public var twitter: TwitterConfiguration?
    /// How far `exp` and `iat` may be off, for clocks that disagree a little.
    public var clockLeeway: Duration = .seconds(60)
    /// A token signed with a key id the issuer's key set lacks makes Selfie fetch the set again,
    /// at most this often (so made-up key ids cannot turn Selfie against the provider).
    public var keySetRefreshInterval: Duration = .seconds(10)

    public init() {}

    public var isEmpty: Bool { oidc.isEmpty && facebook == nil && twitter == nil }

    func oidcProvider(named name: String) -> OIDCProviderConfiguration? {
        oidc.first { $0.name == name }
    }

    static func load(value: (String) -> String?, problems: inout [String]) -> SocialConfiguration {
        var configuration = SocialConfiguration()
        func url(_ name: String, default fallback: String, keepingTrailingSlash: Bool = false) -> String {
            guard let raw = value(name) else { return fallback }
            let trimmed = raw.hasSuffix("/") && !keepingTrailingSlash ? String(raw.dropLast()) : raw
            guard let parsed = URL(string: trimmed), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil
            else {
                problems.append("\(name) must be an absolute http(s) URL, got \"\(raw)\"")
                return fallback
            }
            return trimmed
        }
        func list(_ name: String) -> [String]? {
            value(name).map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        }
        func oidc(_ prefix: String, name: String, displayName: String, issuer defaultIssuer: String?) -> OIDCProviderConfiguration? {
            guard let clientIDs = list("\(prefix)_CLIENT_IDS"), !clientIDs.isEmpty else { return nil }
            let issuer: String
            if let defaultIssuer {
                issuer = url("\(prefix)_ISSUER", default: defaultIssuer, keepingTrailingSlash: true)
            } else if value("\(prefix)_ISSUER") != nil {
                issuer = url("\(prefix)_ISSUER", default: "", keepingTrailingSlash: true)
            } else {
                problems.append("\(prefix)_ISSUER is missing (the OpenID Connect issuer URL, needed with \(prefix)_CLIENT_IDS)")
                return nil
            }
            return OIDCProviderConfiguration(
                name: name,
                displayName: displayName,
                issuer: issuer,
                clientIDs: clientIDs,
                clientSecret: value("\(prefix)_CLIENT_SECRET")
            )
        }

        if var apple = oidc("APPLE", name: "apple", displayName: "Apple", issuer: "https://appleid.apple.com") {
            apple.usesFormPost = true
            apple.trustsVerifiedEmail = true
            apple.scopes = "openid email name"
            configuration.oidc.append(apple)
        }
        if var google = oidc("GOOGLE", name: "google", displayName: "Google", issuer: "https://accounts.google.com") {
            if google.issuer == "https://accounts.google.com" { google.alternativeIssuers = ["accounts.google.com"] }
            google.trustsVerifiedEmail = true
            configuration.oidc.append(google)
        }
        if var generic = oidc("OIDC", name: "oidc", displayName: value("OIDC_DISPLAY_NAME") ?? "single sign-on", issuer: nil) {
            generic.trustsVerifiedEmail = value("OIDC_TRUST_VERIFIED_EMAIL")?.lowercased() == "true"
            configuration.oidc.append(generic)
        }
        switch (value("FACEBOOK_APP_ID"), value("FACEBOOK_APP_SECRET")) {
        case let (id?, secret?):
            configuration.facebook = FacebookConfiguration(
                appID: id,
                appSecret: secret,
                graphURL: url("FACEBOOK_GRAPH_URL", default: "https://graph.facebook.com")
            )
        case (nil, nil): break
        default: problems.append("FACEBOOK_APP_ID and FACEBOOK_APP_SECRET must be set together")
        }
        switch (value("TWITTER_CONSUMER_KEY"), value("TWITTER_CONSUMER_SECRET")) {
        case let (key?, secret?):
            configuration.twitter = TwitterConfiguration(
                consumerKey: key,
                consumerSecret: secret,
                apiURL: url("TWITTER_API_URL", default: "https://api.twitter.com/1.1")
            )
        case (nil, nil): break
        default: problems.append("TWITTER_CONSUMER_KEY and TWITTER_CONSUMER_SECRET must be set together")
        }
        if let raw = value("OIDC_KEY_SET_REFRESH_SECONDS") {
            if let seconds = Int(raw), seconds >= 0 {
                configuration.keySetRefreshInterval = .seconds(seconds)
            } else {
                problems.append("OIDC_KEY_SET_REFRESH_SECONDS must be a whole number ≥ 0, got \"\(raw)\"")
            }
        }
        return configuration
    }
}
