import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting

/// A minimal browser for tests: keeps cookies, follows nothing by itself, and fills forms with the
/// CSRF token of the page they are on, as a person's browser would.
final class Browser: @unchecked Sendable {
    let client: any TestClientProtocol
    private(set) var cookies: [String: String] = [:]
    var userAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
    /// Sent with every request (an `Accept-Language`, say).
    var extraHeaders: HTTPFields = [:]

    init(client: any TestClientProtocol) {
        self.client = client
    }

    func setCookie(_ name: String, _ value: String) { cookies[name] = value }

    @discardableResult
    func get(_ path: String) async throws -> TestResponse {
        try await send(path, method: .get, body: nil as ByteBuffer?, contentType: nil)
    }

    /// POSTs `fields` as an urlencoded form, exactly as given (no token added).
    @discardableResult
    func post(_ path: String, form fields: [(String, String)]) async throws -> TestResponse {
        try await send(path, method: .post, body: Self.urlEncoded(fields), contentType: "application/x-www-form-urlencoded")
    }

    /// Opens `page`, reads its CSRF token, and submits `fields` with it to `action`.
    @discardableResult
    func submit(_ action: String, from page: String, _ fields: [(String, String)]) async throws -> TestResponse {
        let token = try await csrfToken(on: page)
        return try await post(action, form: [("_csrf", token)] + fields)
    }

    func csrfToken(on page: String) async throws -> String {
        let response = try await get(page)
        let html = response.text
        guard let token = html.firstCapture(of: #"name="_csrf" value="([^"]+)""#) else {
            throw TestSetupError("no CSRF token on \(page) (\(response.status), location \(response.location ?? "none"))")
        }
        return token
    }

    /// Creates an account the way a person does and signs in with it: the sign-up form (which
    /// answers "check your mail" and signs no one in), then the sign-in form. Returns the sign-in's
    /// answer (a 303 with the session cookie), or the sign-up's if it was refused.
    @discardableResult
    func signUp(name: String = "Ada Lovelace", email: String, password: String = "correct horse battery") async throws
        -> TestResponse
    {
        let answer = try await submitSignUp(name: name, email: email, password: password)
        guard answer.status == .ok else { return answer }
        return try await signIn(email: email, password: password)
    }

    /// The sign-up form alone: the page it leads to ("check your mail", after its redirect), or
    /// the form sent back with its errors.
    @discardableResult
    func submitSignUp(name: String = "Ada Lovelace", email: String, password: String = "correct horse battery") async throws
        -> TestResponse
    {
        let answer = try await submit(
            "/signup",
            from: "/signup",
            [("full_name", name), ("email", email), ("password", password), ("password_confirmation", password)]
        )
        guard answer.status == .seeOther, let location = answer.location else { return answer }
        return try await get(location)
    }

    @discardableResult
    func signIn(email: String, password: String = "correct horse battery", next: String = "") async throws -> TestResponse {
        try await submit("/signin", from: "/signin", [("email", email), ("password", password), ("next", next)])
    }

    func send(_ path: String, method: HTTPRequest.Method, body: String?, contentType: String?) async throws -> TestResponse {
        try await send(path, method: method, body: body.map { ByteBuffer(string: $0) }, contentType: contentType)
    }

    func send(_ path: String, method: HTTPRequest.Method, body: ByteBuffer?, contentType: String?, extraHeaders: HTTPFields = [:]) async throws
        -> TestResponse
    {
        var headers: HTTPFields = [.userAgent: userAgent]
        headers.append(contentsOf: self.extraHeaders)
        headers.append(contentsOf: extraHeaders)
        if !cookies.isEmpty {
            headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")
        }
        if let contentType { headers[.contentType] = contentType }
        let response = try await client.execute(
            uri: path,
            method: method,
            headers: headers,
            body: body
        )
        for header in response.headers[values: .setCookie] {
            let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0])
            let value = pair.count > 1 ? String(pair[1]) : ""
            if header.contains("Max-Age=0") || value.isEmpty {
                cookies[name] = nil
            } else {
                cookies[name] = value
            }
        }
        return response
    }

    /// `submit`, on a connection of its own (the test client's one connection takes requests in
    /// turn): for a request that waits on a lock the test holds while other requests go on.
    /// Returns the answer's status line and head; cookies it sets are not kept.
    func submitOnItsOwnConnection(_ action: String, from page: String, _ fields: [(String, String)], port: Int) async throws
        -> RawHTTPClient.Answer
    {
        let body = Array(Self.urlEncoded([("_csrf", try await csrfToken(on: page))] + fields).utf8)
        var head = "POST \(action) HTTP/1.1\r\nHost: localhost\r\nUser-Agent: \(userAgent)\r\n"
        head += "Cookie: \(cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; "))\r\n"
        head += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return try await RawHTTPClient.writeEverythingThenRead(port: port, head: head, firstBytes: body, bodyBytes: body.count, readFor: .seconds(1))
    }

    static func urlEncoded(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map {
            "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        }.joined(separator: "&")
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
    var location: String? { headers[.location] }
    func setCookieHeader(named name: String) -> String? {
        headers[values: .setCookie].first { $0.hasPrefix("\(name)=") }
    }
}

extension String {
    func firstCapture(of pattern: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
            let match = regex.firstMatch(in: self, range: NSRange(startIndex..., in: self)),
            let range = Range(match.range(at: 1), in: self)
        else { return nil }
        return String(self[range])
    }
}

/// A unique email per call, so tests never collide even in a shared database.
func uniqueEmail(_ name: String = "user") -> String {
    "\(name)+\(UUID().uuidString.prefix(8).lowercased())@example.com"
}
