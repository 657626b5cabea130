import Crypto
import Foundation
import Hummingbird

extension FakeProviders {
    /// Registers a Facebook app the Graph API fake answers `debug_token` for.
    public func registerFacebookApp(_ id: String, secret: String) { state.withLock { $0.clients["facebook:" + id] = .some(secret) } }

    /// The fake's routes.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/oidc/.well-known/openid-configuration") { _, _ in
            let issuer = self.issuer
            return Self.json([
                "issuer": issuer,
                "jwks_uri": issuer + "/jwks",
                "authorization_endpoint": issuer + "/authorize",
                "token_endpoint": issuer + "/token",
                "response_types_supported": ["code"],
                "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256", "ES256"],
                "code_challenge_methods_supported": ["S256"],
            ])
        }
        router.get("/oidc/jwks") { _, _ in
            let keys = self.state.withLock { state in
                state.jwksRequests += 1
                return state.published.map(\.jwk)
            }
            return Self.json(["keys": keys])
        }
        router.get("/oidc/authorize") { request, _ in try self.consentPage(request) }
        router.post("/oidc/authorize") { request, _ in try await self.approve(request) }
        router.post("/oidc/token") { request, _ in try await self.token(request) }
        router.get("/facebook/debug_token") { request, _ in self.facebookDebugToken(request) }
        router.get("/facebook/me") { request, _ in self.facebookMe(request) }
        router.get("/twitter/1.1/account/verify_credentials.json") { request, _ in self.twitterVerifyCredentials(request) }
        return router
    }

    // MARK: OpenID Connect

    private func consentPage(_ request: Request) throws -> Response {
        let query = Dictionary(request.uri.queryParameters.map { (String($0.key), String($0.value)) }, uniquingKeysWith: { a, _ in a })
        let registered = state.withLock { $0.clients[query["client_id"] ?? ""] != nil }
        guard registered, query["response_type"] == "code", query["code_challenge_method"] == "S256",
            let challenge = query["code_challenge"], !challenge.isEmpty, query["redirect_uri"] != nil
        else {
            return Self.html("<h1>Bad authorization request</h1>", status: .badRequest)
        }
        let person = state.withLock { $0.person }
        let hidden = query.sorted { $0.key < $1.key }
            .map { "<input type=\"hidden\" name=\"\(Self.escape($0.key))\" value=\"\(Self.escape($0.value))\">" }
            .joined(separator: "\n")
        return Self.html(
            """
            <h1>Fake identity provider</h1>
            <p>Selfie asks to know who you are.</p>
            <form method="post" action="/oidc/authorize">
            \(hidden)
            <button id="approve" type="submit" name="decision" value="approve">Continue as \(Self.escape(person.name ?? person.subject))</button>
            <button id="cancel" type="submit" name="decision" value="cancel">Cancel</button>
            </form>
            """
        )
    }

    private func approve(_ request: Request) async throws -> Response {
        let form = try await Self.form(request)
        guard let redirectURI = form["redirect_uri"], let state = form["state"], let clientID = form["client_id"],
            let challenge = form["code_challenge"]
        else {
            return Self.html("<h1>Bad authorization request</h1>", status: .badRequest)
        }
        var parameters: [(String, String)]
        if form["decision"] == "cancel" {
            parameters = [("error", "access_denied"), ("state", state)]
        } else {
            let code = UUID().uuidString
            self.state.withLock {
                $0.codes[code] = PendingCode(clientID: clientID, redirectURI: redirectURI, codeChallenge: challenge, nonce: form["nonce"], person: $0.person)
            }
            parameters = [("code", code), ("state", state)]
        }
        if form["response_mode"] == "form_post" {
            let fields = parameters.map { "<input type=\"hidden\" name=\"\($0.0)\" value=\"\(Self.escape($0.1))\">" }.joined()
            return Self.html(
                "<form id=\"back\" method=\"post\" action=\"\(Self.escape(redirectURI))\">\(fields)<button>Continue</button></form>"
                    + "<script>document.getElementById('back').submit()</script>"
            )
        }
        let location = redirectURI + (redirectURI.contains("?") ? "&" : "?") + parameters.map { "\($0.0)=\(Self.encode($0.1))" }.joined(separator: "&")
        return Response(status: .seeOther, headers: [.location: location])
    }

    private func token(_ request: Request) async throws -> Response {
        let form = try await Self.form(request)
        let refusal = Self.json(["error": "invalid_grant"], status: .badRequest)
        guard form["grant_type"] == "authorization_code", let code = form["code"], let verifier = form["code_verifier"],
            let pending = state.withLock({ $0.codes.removeValue(forKey: code) })
        else { return refusal }
        let secret = state.withLock { $0.clients[pending.clientID] ?? nil }
        guard form["client_id"] == pending.clientID, form["redirect_uri"] == pending.redirectURI,
            secret == nil || form["client_secret"] == secret,
            base64URL(Data(SHA256.hash(data: Data(verifier.utf8)))) == pending.codeChallenge
        else { return refusal }
        let person = pending.person
        let idToken = try await idToken(
            audience: [pending.clientID],
            subject: person.subject,
            nonce: pending.nonce,
            email: person.email,
            emailVerified: person.email == nil ? nil : person.emailVerified,
            name: person.name
        )
        return Self.json(["access_token": UUID().uuidString, "token_type": "Bearer", "expires_in": 3600, "id_token": idToken])
    }

    // MARK: Facebook

    private func facebookDebugToken(_ request: Request) -> Response {
        let input = request.uri.queryParameters["input_token"].map(String.init) ?? ""
        let appToken = request.uri.queryParameters["access_token"].map(String.init) ?? ""
        let parts = appToken.split(separator: "|", maxSplits: 1).map(String.init)
        let appKnown = parts.count == 2 && state.withLock { $0.clients["facebook:" + parts[0]] == .some(parts[1]) }
        guard appKnown else {
            return Self.json(["error": ["message": "Invalid OAuth access token.", "type": "OAuthException", "code": 190]], status: .badRequest)
        }
        guard let token = state.withLock({ $0.facebookTokens[input] }) else {
            return Self.json(["data": ["is_valid": false, "error": ["message": "Invalid OAuth access token.", "code": 190]]])
        }
        return Self.json([
            "data": [
                "app_id": token.appID,
                "type": "USER",
                "is_valid": token.isValid,
                "user_id": token.userID,
                "expires_at": Int(token.expiresAt?.timeIntervalSince1970 ?? 0),
            ]
        ])
    }

    private func facebookMe(_ request: Request) -> Response {
        let accessToken = request.uri.queryParameters["access_token"].map(String.init) ?? ""
        let proof = request.uri.queryParameters["appsecret_proof"].map(String.init) ?? ""
        let found: (FacebookToken, String)? = state.withLock { state in
            guard let token = state.facebookTokens[accessToken], token.isValid, let secret = state.clients["facebook:" + token.appID] ?? nil
            else { return nil }
            return (token, secret)
        }
        guard let (token, secret) = found,
            HMAC<SHA256>.authenticationCode(for: Data(accessToken.utf8), using: SymmetricKey(data: Data(secret.utf8)))
                .map({ String(format: "%02x", $0) }).joined() == proof
        else {
            return Self.json(["error": ["message": "Invalid OAuth access token.", "type": "OAuthException", "code": 190]], status: .badRequest)
        }
        var me: [String: Any] = ["id": token.userID]
        if let name = token.name { me["name"] = name }
        if let email = token.email { me["email"] = email }
        return Self.json(me)
    }

    // MARK: Twitter

    /// Checks the OAuth 1.0a signature itself (RFC 5849 §3.4), as Twitter does.
    private func twitterVerifyCredentials(_ request: Request) -> Response {
        let refusal = Self.json(["errors": [["code": 32, "message": "Could not authenticate you."]]], status: .unauthorized)
        guard let header = request.headers[.authorization], header.hasPrefix("OAuth ") else { return refusal }
        var oauth: [String: String] = [:]
        for item in header.dropFirst(6).split(separator: ",") {
            let pair = item.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, pair[1].hasPrefix("\""), pair[1].hasSuffix("\"") else { return refusal }
            oauth[pair[0].removingPercentEncoding ?? pair[0]] = String(pair[1].dropFirst().dropLast()).removingPercentEncoding
        }
        guard let token = oauth["oauth_token"], let signature = oauth["oauth_signature"], let nonce = oauth["oauth_nonce"],
            let timestamp = oauth["oauth_timestamp"].flatMap(Int.init), oauth["oauth_signature_method"] == "HMAC-SHA1",
            abs(Date.now.timeIntervalSince1970 - Double(timestamp)) < 300,
            let account = state.withLock({ $0.twitterTokens[token] }), oauth["oauth_consumer_key"] == account.consumerKey,
            state.withLock({ $0.twitterNonces.insert(nonce).inserted })
        else { return refusal }
        var parameters = oauth.filter { $0.key != "oauth_signature" }.map { ($0.key, $0.value) }
        parameters += request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        let encoded: [(name: String, value: String)] = parameters.map { (Self.encode($0.0), Self.encode($0.1)) }
        let sorted = encoded.sorted { (a: (name: String, value: String), b: (name: String, value: String)) -> Bool in
            a.name == b.name ? a.value < b.value : a.name < b.name
        }
        let normalized = sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
        let url = twitterURL + "/account/verify_credentials.json"
        let base = "GET&\(Self.encode(url))&\(Self.encode(normalized))"
        let key = Self.encode(account.consumerSecret) + "&" + Self.encode(account.tokenSecret)
        let expected = Data(HMAC<Insecure.SHA1>.authenticationCode(for: Data(base.utf8), using: SymmetricKey(data: Data(key.utf8))))
            .base64EncodedString()
        guard expected == signature else { return refusal }
        var body: [String: Any] = ["id_str": account.userID, "id": Int(account.userID) ?? 0, "name": account.name, "screen_name": account.screenName]
        if request.uri.queryParameters["include_email"] == "true" { body["email"] = "\(account.screenName)@twitter.example" }
        return Self.json(body)
    }

    // MARK: Helpers

    static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func html(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        let page = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><link rel=\"icon\" href=\"data:,\"><title>Fake identity provider</title></head><body>\(body)</body></html>"
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    static func form(_ request: Request) async throws -> [String: String] {
        var request = request
        let body = String(buffer: try await request.collectBody(upTo: 64 * 1024))
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    /// RFC 3986 unreserved characters stay; everything else is %XX.
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? ""
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
