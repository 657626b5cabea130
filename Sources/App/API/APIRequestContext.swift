import Foundation
import Hummingbird
import SelfieCore

/// The context of the JSON API under `/api`: no cookies, no session; an app key or a token,
/// once the middleware of the route's group has checked it.
struct APIRequestContext: ClientAddressProviding {
    typealias Source = AppRequestContext

    var coreContext: CoreRequestContextStorage
    let remoteAddress: String
    /// Set by `AppKeyMiddleware` on the app-key routes.
    var appKey: AppKey?
    /// Set by `APITokenMiddleware` on the token routes.
    var apiToken: AuthenticatedToken?
    /// Set by `UploaderMiddleware` when a browser's session (and its CSRF token) is what vouches.
    var sessionUser: User?
    /// Set with `appKey` or `apiToken`: where the API request came from, for the audit log.
    var origin: RequestOrigin?

    /// Forms and JSON bodies are small; photo uploads stream and have their own limit.
    var maxUploadSize: Int { 64 * 1024 }

    init(source: AppRequestContext) {
        self.coreContext = source.coreContext
        self.remoteAddress = source.remoteAddress
    }
}

/// Requires a valid app key (HTTP Basic) on the routes it guards and records it in the context.
struct AppKeyMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let keys: AppKeyService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let (name, password) = Self.basicCredentials(request.headers[.authorization]),
            let key = try await keys.authenticate(name: name, password: password)
        else {
            throw APIError.appKeyRequired
        }
        try await keys.recordUse(of: key)
        var context = context
        context.appKey = key
        context.origin = RequestOrigin(request, remoteAddress: context.remoteAddress)
        return try await next(request, context)
    }

    /// The name and password of an `Authorization: Basic …` header.
    static func basicCredentials(_ header: String?) -> (name: String, password: String)? {
        guard let header, header.count > 6, header.prefix(6).lowercased() == "basic ",
            let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let credentials = String(data: decoded, encoding: .utf8),
            let colon = credentials.firstIndex(of: ":")
        else { return nil }
        return (String(credentials[..<colon]), String(credentials[credentials.index(after: colon)...]))
    }
}

/// Requires a live API token on the routes it guards and records it in the context. Accepted
/// forms: `Token token=…` (the iOS app), `Token token="…"` (Rails style) and `Bearer …`.
struct APITokenMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let accounts: AccountService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let presented = Self.token(fromAuthorization: request.headers[.authorization]),
            let token = try await accounts.token(presented)
        else { throw APIError.tokenRequired }
        var context = context
        context.apiToken = token
        context.origin = RequestOrigin(request, remoteAddress: context.remoteAddress)
        RequestFacts.signedIn(token.user.id)
        return try await next(request, context)
    }

    /// The token of `Authorization: Bearer <token>` or Rails' `Token token=<token>` (quoted or not,
    /// options after a comma ignored); nil for anything else. Read on the header's bytes: every
    /// API request passes here.
    static func token(fromAuthorization header: String?) -> String? {
        guard let header else { return nil }
        var value = trimmed(header.utf8[...])
        if startsCaseInsensitively(value, with: "bearer ") {
            value = value.dropFirst(7)
        } else if startsCaseInsensitively(value, with: "token ") {
            value = value.dropFirst(6).drop { $0 == UInt8(ascii: " ") }
            guard startsCaseInsensitively(value, with: "token=") else { return nil }
            value = value.dropFirst(6)
            // further Rails-style options (`, nonce="…"`) are not part of the token
            if let comma = value.firstIndex(of: UInt8(ascii: ",")) { value = value[..<comma] }
        } else {
            return nil
        }
        value = trimmed(value)
        if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
            value = value.dropFirst().dropLast()
        }
        guard !value.isEmpty, value.count <= 512 else { return nil }
        return String(Substring(value))
    }

    private static func trimmed(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        let blank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) }) else {
            return bytes[bytes.endIndex...]
        }
        return bytes[first...last]
    }

    /// Whether `bytes` begin with `prefix` (lowercase ASCII) in any case.
    private static func startsCaseInsensitively(_ bytes: Substring.UTF8View, with prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        return zip(bytes, UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)).allSatisfy { byte, expected in
            byte == expected || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte + 32 == expected)
        }
    }
}

/// The context of app-key routes: creating it fails without a verified key.
struct AppKeyContext: ChildRequestContext, ClientAddressProviding {
    var coreContext: CoreRequestContextStorage
    let appKey: AppKey
    let origin: RequestOrigin
    var remoteAddress: String { origin.ipAddress }
    var maxUploadSize: Int { 64 * 1024 }

    init(context: APIRequestContext) throws {
        guard let key = context.appKey, let origin = context.origin else { throw APIError.appKeyRequired }
        self.coreContext = context.coreContext
        self.appKey = key
        self.origin = origin
    }
}

/// The context of token routes: creating it fails without a live token.
struct APITokenContext: ChildRequestContext, ClientAddressProviding {
    var coreContext: CoreRequestContextStorage
    let token: AuthenticatedToken
    let origin: RequestOrigin
    var user: User { token.user }
    var remoteAddress: String { origin.ipAddress }
    var maxUploadSize: Int { 64 * 1024 }

    init(context: APIRequestContext) throws {
        guard let token = context.apiToken, let origin = context.origin else { throw APIError.tokenRequired }
        self.coreContext = context.coreContext
        self.token = token
        self.origin = origin
    }
}
