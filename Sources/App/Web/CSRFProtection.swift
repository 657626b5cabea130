import Base64URLCoding
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import SelfieCore

/// CSRF tokens are an HMAC of what the browser is bound to (its session, or its visitor cookie
/// before sign-in) under a key derived from `SECRET_KEY`: nothing to store, and a new session
/// means new tokens.
struct CSRFTokens: Sendable {
    /// Keyed once; each token copies it (every page view makes one).
    private let keyedHMAC: HMAC<SHA256>

    init(secretKey: SecretKey) {
        self.keyedHMAC = HMAC<SHA256>(key: secretKey.derived(for: "csrf"))
    }

    func token(forSession sessionID: Int64) -> String { token(binding: "session:\(sessionID)") }
    func token(forVisitor value: String) -> String { token(binding: "visitor:\(value)") }

    private func token(binding: String) -> String {
        var hmac = keyedHMAC
        var binding = binding
        binding.withUTF8 { hmac.update(data: UnsafeRawBufferPointer($0)) }
        return hmac.finalize().withUnsafeBytes { Base64URL.encode($0) }
    }
}

/// Refuses state-changing browser requests that do not carry the page's CSRF token: in the
/// `_csrf` form field, the `X-CSRF-Token` header, or (for multipart uploads, whose body streams
/// past this point unread) the `_csrf` query parameter of the form's action. It guards the web's
/// form routes; the one route a provider posts back to is registered outside it.
struct CSRFMiddleware: RouterMiddleware {
    typealias Context = WebRequestContext
    /// Forms are small; the limit stops a huge body from being buffered just to find the token.
    static let maximumFormBytes = 64 * 1024

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard ![.get, .head, .options].contains(request.method) else {
            return try await next(request, context)
        }
        var request = request
        var candidate = request.headers[.csrfToken]
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        if candidate == nil, contentType.hasPrefix("application/x-www-form-urlencoded") {
            let body = try await request.collectBody(upTo: Self.maximumFormBytes)
            candidate = URLEncodedForm.value(of: "_csrf", in: String(buffer: body))
        } else if candidate == nil, contentType.hasPrefix("multipart/form-data") {
            candidate = request.uri.queryParameters["_csrf"].map(String.init)
        }
        guard let candidate, !context.csrfToken.isEmpty,
            constantTimeEquals(Array(candidate.utf8), Array(context.csrfToken.utf8))
        else {
            // A form from a page whose session has since ended: ask to sign in again.
            if context.hasStaleSession { throw SignInRequired() }
            context.logger.notice("CSRF token missing or wrong", metadata: ["path": "\(request.loggedPath)"])
            throw AppError.csrfRejected
        }
        return try await next(request, context)
    }
}


extension HTTPField.Name {
    static let csrfToken = Self("X-CSRF-Token")!
}
