@testable import App
@testable import SelfieCore
import Foundation
import Testing

@Suite("Provider configuration and OAuth 1.0a signing")
struct SocialConfigurationAndSigningTests {
    let complete: [String: String] = [
        "SECRET_KEY": String(repeating: "s", count: 32),
        "DATABASE_URL": "postgres://selfie:pw@127.0.0.1:5432/selfie",
        "API_AUTH_NAME": "app",
        "API_AUTH_PASSWORD": "app-password",
    ]

    @Test("Twitter's published signature example (developer docs, 'Creating a signature') signs to its known value")
    func oauth1KnownAnswer() {
        let signer = OAuth1Signer(
            consumerKey: "xvz1evFS4wEEPTGEFPHBog",
            consumerSecret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw",
            token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
            tokenSecret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"
        )
        let parameters = [
            ("status", "Hello Ladies + Gentlemen, a signed OAuth request!"),
            ("include_entities", "true"),
            ("oauth_consumer_key", "xvz1evFS4wEEPTGEFPHBog"),
            ("oauth_nonce", "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg"),
            ("oauth_signature_method", "HMAC-SHA1"),
            ("oauth_timestamp", "1318622958"),
            ("oauth_token", "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb"),
            ("oauth_version", "1.0"),
        ]
        let url = "https://api.twitter.com/1.1/statuses/update.json"
        #expect(
            OAuth1Signer.baseString(method: "post", url: url, parameters: parameters).hasPrefix(
                "POST&https%3A%2F%2Fapi.twitter.com%2F1.1%2Fstatuses%2Fupdate.json&include_entities%3Dtrue%26oauth_consumer_key%3Dxvz1evFS4wEEPTGEFPHBog%26"
            )
        )
        #expect(signer.signature(method: "POST", url: url, parameters: parameters) == "hCtSmYh+iHYCEqBWrE7C7hYmtUk=")
        let header = signer.authorization(
            method: "POST", url: url, parameters: Array(parameters.prefix(2)),
            nonce: "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", timestamp: 1_318_622_958
        )
        #expect(header.contains(#"oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D""#))
    }

    @Test("providers are off until their client ids are set; Apple and Google default to the real issuers")
    func providersFromEnvironment() throws {
        #expect(try AppConfiguration.load(from: complete).social.isEmpty)
        var environment = complete
        environment["APPLE_CLIENT_IDS"] = "com.example.selfie, com.example.selfie.web"
        environment["GOOGLE_CLIENT_IDS"] = "123.apps.googleusercontent.com"
        environment["GOOGLE_CLIENT_SECRET"] = "google-secret"
        environment["OIDC_CLIENT_IDS"] = "selfie"
        environment["OIDC_ISSUER"] = "https://login.example.com/realms/main/"
        environment["OIDC_DISPLAY_NAME"] = "Example SSO"
        environment["FACEBOOK_APP_ID"] = "fb"
        environment["FACEBOOK_APP_SECRET"] = "fb-secret"
        let social = try AppConfiguration.load(from: environment).social
        #expect(social.oidc.map(\.name) == ["apple", "google", "oidc"])
        let apple = try #require(social.oidcProvider(named: "apple"))
        #expect(apple.issuer == "https://appleid.apple.com")
        #expect(apple.clientIDs == ["com.example.selfie", "com.example.selfie.web"])
        #expect(apple.usesFormPost)
        let google = try #require(social.oidcProvider(named: "google"))
        #expect(google.acceptedIssuers == ["https://accounts.google.com", "accounts.google.com"])
        #expect(google.clientSecret == "google-secret")
        let generic = try #require(social.oidcProvider(named: "oidc"))
        #expect(generic.issuer == "https://login.example.com/realms/main/", "compared exactly as configured")
        #expect(!generic.trustsVerifiedEmail, "another issuer's email_verified is not trusted unless asked for")
        #expect(google.trustsVerifiedEmail && apple.trustsVerifiedEmail)
        #expect(generic.discoveryURL == "https://login.example.com/realms/main/.well-known/openid-configuration")
        #expect(generic.displayName == "Example SSO")
        #expect(social.facebook == FacebookConfiguration(appID: "fb", appSecret: "fb-secret"))
        #expect(social.twitter == nil)
    }

    @Test("half-configured providers are named in the start-up error")
    func incompleteProviders() {
        var environment = complete
        environment["OIDC_CLIENT_IDS"] = "selfie"
        environment["FACEBOOK_APP_ID"] = "fb"
        environment["TWITTER_CONSUMER_SECRET"] = "tw"
        environment["GOOGLE_CLIENT_IDS"] = "g"
        environment["GOOGLE_ISSUER"] = "not a url"
        #expect {
            try AppConfiguration.load(from: environment)
        } throws: { error in
            let problems = (error as? ConfigurationError)?.problems ?? []
            return problems.contains { $0.hasPrefix("OIDC_ISSUER is missing") }
                && problems.contains("FACEBOOK_APP_ID and FACEBOOK_APP_SECRET must be set together")
                && problems.contains("TWITTER_CONSUMER_KEY and TWITTER_CONSUMER_SECRET must be set together")
                && problems.contains("GOOGLE_ISSUER must be an absolute http(s) URL, got \"not a url\"")
        }
    }

    @Test("a new account's name: the provider's, cleaned, else the email's local part, else the provider's")
    func newAccountNames() {
        #expect(SocialSignInService.fullName(for: SocialIdentity(provider: "google", issuer: "https://accounts.google.com", subject: "1", name: " Grace\u{7}Hopper "), providerName: "Google") == "GraceHopper")
        #expect(SocialSignInService.fullName(for: SocialIdentity(provider: "google", issuer: "https://accounts.google.com", subject: "1", email: "ada@example.com"), providerName: "Google") == "ada")
        #expect(SocialSignInService.fullName(for: SocialIdentity(provider: "twitter", issuer: "twitter", subject: "1"), providerName: "Twitter") == "Twitter user")
    }
}
