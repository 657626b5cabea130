import AsyncHTTPClient
import Crypto
import Foundation

/// Checks a Facebook user access token with the Graph API: `debug_token` (asked with our app's
/// token) must say it is valid, unexpired and issued to our app; then `/me` says who it is.
struct FacebookVerifier: Sendable {
    let configuration: FacebookConfiguration
    let http: HTTPClient

    private struct DebugToken: Decodable {
        struct Data: Decodable {
            let appID: String?
            let isValid: Bool?
            let userID: String?
            let expiresAt: Int?

            enum CodingKeys: String, CodingKey {
                case appID = "app_id"
                case isValid = "is_valid"
                case userID = "user_id"
                case expiresAt = "expires_at"
            }
        }
        let data: Data
    }

    private struct Me: Decodable {
        let id: String
        let name: String?
        let email: String?
    }

    /// `expectedUserID`: the Facebook user id the client says the token is for (the register/login API's
    /// `passkey`); it must match, but it is never what decides who signs in.
    func verify(accessToken: String, expectedUserID: String? = nil, now: Date = .now) async throws -> SocialIdentity {
        guard !accessToken.isEmpty, accessToken.utf8.count <= 4096 else { throw SocialVerificationError.malformed("the access token is empty or too long") }
        let appToken = "\(configuration.appID)|\(configuration.appSecret)"
        let debug: DebugToken = try await get(
            "/debug_token",
            query: [("input_token", accessToken), ("access_token", appToken)],
            refusal: "Facebook does not recognise this access token"
        )
        guard debug.data.isValid == true else { throw SocialVerificationError.rejectedByProvider("Facebook says this access token is not valid") }
        guard debug.data.appID == configuration.appID else { throw SocialVerificationError.wrongAudience }
        if let expiresAt = debug.data.expiresAt, expiresAt != 0, Date(timeIntervalSince1970: TimeInterval(expiresAt)) <= now {
            throw SocialVerificationError.expired
        }
        guard let userID = debug.data.userID, !userID.isEmpty else {
            throw SocialVerificationError.rejectedByProvider("the access token belongs to no Facebook user")
        }
        // appsecret_proof: Facebook refuses the call unless it comes from the app's own server.
        let proof = HMAC<SHA256>.authenticationCode(for: Data(accessToken.utf8), using: SymmetricKey(data: Data(configuration.appSecret.utf8)))
            .hexString
        let me: Me = try await get(
            "/me",
            query: [("fields", "id,name,email"), ("access_token", accessToken), ("appsecret_proof", proof)],
            refusal: "Facebook does not recognise this access token"
        )
        guard me.id == userID else { throw SocialVerificationError.rejectedByProvider("Facebook gave two different users for this token") }
        if let expectedUserID, expectedUserID != userID {
            throw SocialVerificationError.rejectedByProvider("the access token belongs to another Facebook user")
        }
        // Facebook does not say whether the address was verified: it is never used to link.
        return SocialIdentity(
            provider: "facebook",
            issuer: "facebook:\(configuration.appID)",
            subject: userID,
            email: me.email,
            emailVerified: false,
            name: me.name
        )
    }

    private func get<T: Decodable>(_ path: String, query: [(String, String)], refusal: String) async throws -> T {
        let url = configuration.graphURL + path + "?" + PercentEncoding.query(query)
        let (status, body) = try await ProviderHTTP.send(HTTPClientRequest(url: url), http: http, provider: "Facebook")
        switch status {
        case 200: return try ProviderHTTP.decode(body, provider: "Facebook")
        case 400, 401, 403: throw SocialVerificationError.rejectedByProvider(refusal)
        default: throw SocialVerificationError.providerUnavailable("Facebook answered \(status)")
        }
    }
}
