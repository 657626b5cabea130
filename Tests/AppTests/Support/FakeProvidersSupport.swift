@testable import App
@testable import SelfieCore
import AsyncHTTPClient
import FakeProviders
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting

/// The client ids the fake issuer knows: the web client of the code flow and an iOS bundle id.
let webClientID = "selfie-web"
let iOSClientID = "com.example.selfie"

/// Selfie configured for Google (and a second OpenID Connect provider, "Fake SSO"), Facebook and
/// Twitter, all served by `FakeProviders` on a loopback port of their own.
func withFakeProviders<T: Sendable>(
    configure: @escaping @Sendable (inout AppConfiguration) throws -> Void = { _ in },
    _ body: @escaping @Sendable (TestApp, FakeProviders) async throws -> T
) async throws -> T {
    let fake = try await FakeProviders()
    fake.registerClient(webClientID, secret: "web-client-secret")
    fake.registerFacebookApp("fb-app", secret: "fb-app-secret")
    return try await fake.serving { _ in
        try await withTestApp(configure: { config in
            var social = SocialConfiguration()
            social.oidc = [
                OIDCProviderConfiguration(
                    name: "google", displayName: "Google", issuer: fake.issuer, clientIDs: [webClientID, iOSClientID],
                    clientSecret: "web-client-secret"
                ),
                OIDCProviderConfiguration(name: "oidc", displayName: "Fake SSO", issuer: fake.issuer, clientIDs: [iOSClientID]),
            ]
            for index in social.oidc.indices { social.oidc[index].trustsVerifiedEmail = true }
            social.facebook = FacebookConfiguration(appID: "fb-app", appSecret: "fb-app-secret", graphURL: fake.graphURL)
            social.twitter = TwitterConfiguration(consumerKey: "tw-key", consumerSecret: "tw-secret", apiURL: fake.twitterURL)
            social.keySetRefreshInterval = .zero
            config.social = social
            try configure(&config)
        }) { app in
            try await body(app, fake)
        }
    }
}

extension APIClient {
    /// `POST /api/social/signin` with these JSON fields.
    func socialSignIn(_ fields: [String: String]) async throws -> TestResponse {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self)
        return try await send(.post, "/api/social/signin", body: body, authorization: basicAuthorization)
    }

    /// The register/login API's form post to `/api/register` or `/api/login`.
    func registerLoginForm(_ path: String, _ fields: [(String, String)]) async throws -> TestResponse {
        try await send(
            .post,
            path,
            body: Browser.urlEncoded(fields),
            authorization: basicAuthorization,
            contentType: "application/x-www-form-urlencoded"
        )
    }
}

/// Requests to the fake provider itself (outside Selfie), as a browser would make them; redirects
/// are not followed (the test follows the one back to Selfie itself).
enum ProviderBrowser {
    static let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))

    static func get(_ url: String) async throws -> (status: Int, body: String) {
        let response = try await http.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    /// Posts the consent form; returns where the provider redirects to.
    static func approve(_ url: String, consentPage: String, decision: String = "approve") async throws -> String {
        var fields: [(String, String)] = [("decision", decision)]
        let pattern = try NSRegularExpression(pattern: #"<input type="hidden" name="([^"]+)" value="([^"]*)">"#)
        for match in pattern.matches(in: consentPage, range: NSRange(consentPage.startIndex..., in: consentPage)) {
            let name = String(consentPage[Range(match.range(at: 1), in: consentPage)!])
            let value = String(consentPage[Range(match.range(at: 2), in: consentPage)!])
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
                .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
            fields.append((name, value))
        }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: Browser.urlEncoded(fields)))
        let response = try await http.execute(request, timeout: .seconds(10))
        guard response.status == .seeOther, let location = response.headers.first(name: "location") else {
            throw TestSetupError("the fake provider did not redirect: \(response.status)")
        }
        return location
    }
}

extension String {
    /// The path and query of an absolute URL (what the test client requests).
    var pathAndQuery: String {
        guard let url = URLComponents(string: self) else { return self }
        return url.percentEncodedPath + (url.percentEncodedQuery.map { "?\($0)" } ?? "")
    }
}
