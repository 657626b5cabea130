import AsyncHTTPClient
import Crypto
import Foundation

/// OAuth 1.0a request signing (RFC 5849, HMAC-SHA1), as Twitter's API wants it.
struct OAuth1Signer: Sendable {
    let consumerKey: String
    let consumerSecret: String
    let token: String
    let tokenSecret: String

    /// The `Authorization` header for `method url` with these query (or form) parameters.
    func authorization(method: String, url: String, parameters: [(String, String)], nonce: String, timestamp: Int) -> String {
        var oauth = [
            ("oauth_consumer_key", consumerKey),
            ("oauth_nonce", nonce),
            ("oauth_signature_method", "HMAC-SHA1"),
            ("oauth_timestamp", String(timestamp)),
            ("oauth_token", token),
            ("oauth_version", "1.0"),
        ]
        oauth.append(("oauth_signature", signature(method: method, url: url, parameters: parameters + oauth)))
        return "OAuth " + oauth.map { "\(PercentEncoding.encode($0.0))=\"\(PercentEncoding.encode($0.1))\"" }.joined(separator: ", ")
    }

    /// Base64 HMAC-SHA1 of the signature base string, keyed with both secrets.
    func signature(method: String, url: String, parameters: [(String, String)]) -> String {
        let key = PercentEncoding.encode(consumerSecret) + "&" + PercentEncoding.encode(tokenSecret)
        let mac = HMAC<Insecure.SHA1>.authenticationCode(
            for: Data(Self.baseString(method: method, url: url, parameters: parameters).utf8),
            using: SymmetricKey(data: Data(key.utf8))
        )
        return Data(mac).base64EncodedString()
    }

    /// `METHOD&url&params`: parameters encoded, sorted by name then value, joined, encoded again.
    static func baseString(method: String, url: String, parameters: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = parameters.map { (PercentEncoding.encode($0.0), PercentEncoding.encode($0.1)) }
        let sorted = encoded.sorted { lhs, rhs in lhs.name == rhs.name ? lhs.value < rhs.value : lhs.name < rhs.name }
        let normalized = sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        return [method.uppercased(), PercentEncoding.encode(url), PercentEncoding.encode(normalized)].joined(separator: "&")
    }
}

/// Checks a Twitter/X user token and secret by calling `account/verify_credentials` signed with
/// them and our consumer key: only Twitter can say whose they are.
struct TwitterVerifier: Sendable {
    let configuration: TwitterConfiguration
    let http: HTTPClient

    private struct Account: Decodable {
        let idStr: String
        let name: String?
        let screenName: String?
        let email: String?

        enum CodingKeys: String, CodingKey {
            case idStr = "id_str"
            case name
            case screenName = "screen_name"
            case email
        }
    }

    /// `passcode` is the register/login API's `oauth_token:oauth_token_secret`; `expectedUserID` (its
    /// `passkey`) must match when given.
    func verify(passcode: String, expectedUserID: String? = nil) async throws -> SocialIdentity {
        let parts = passcode.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, passcode.utf8.count <= 1024 else {
            throw SocialVerificationError.malformed("the Twitter passcode must be oauth_token:oauth_token_secret")
        }
        let signer = OAuth1Signer(
            consumerKey: configuration.consumerKey,
            consumerSecret: configuration.consumerSecret,
            token: String(parts[0]),
            tokenSecret: String(parts[1])
        )
        let url = configuration.apiURL + "/account/verify_credentials.json"
        let query = [("include_email", "true"), ("skip_status", "true")]
        var request = HTTPClientRequest(url: url + "?" + PercentEncoding.query(query))
        request.headers.add(
            name: "Authorization",
            value: signer.authorization(
                method: "GET",
                url: url,
                parameters: query,
                nonce: RandomToken.urlSafe(byteCount: 24),
                timestamp: Int(Date.now.timeIntervalSince1970)
            )
        )
        let (status, body) = try await ProviderHTTP.send(request, http: http, provider: "Twitter")
        switch status {
        case 200: break
        case 400, 401, 403: throw SocialVerificationError.rejectedByProvider("Twitter does not accept this token and secret")
        default: throw SocialVerificationError.providerUnavailable("Twitter answered \(status)")
        }
        let account: Account = try ProviderHTTP.decode(body, provider: "Twitter")
        guard !account.idStr.isEmpty else { throw SocialVerificationError.rejectedByProvider("Twitter named no user") }
        if let expectedUserID, expectedUserID != account.idStr {
            throw SocialVerificationError.rejectedByProvider("the token belongs to another Twitter user")
        }
        return SocialIdentity(
            provider: "twitter",
            issuer: "twitter",
            subject: account.idStr,
            email: account.email,
            emailVerified: false,
            name: account.name ?? account.screenName
        )
    }
}
