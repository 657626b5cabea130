import Base64URLCoding
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import SelfieCore

/// CSRF tokens are an HMAC of what the browser is bound to (its session, or its visitor cookie
/// before sign-in) under a key derived from `SECRET_KEY`: nothing to store, and a new session
/// means new tokens.
///
/// A token is `<proof>.<mark>`. The proof is that HMAC, and the only part compared. The mark, an
/// HMAC of the kind of binding and the proof under a second key, says that Selfie made the token
/// for a session, without saying which: a form whose proof no longer matches but whose mark is a
/// session's comes from one of Selfie's own pages shown before the browser signed out (in
/// another tab, say) — "sign in again" rather than "this form did not come from Selfie". A
/// visitor's form (sign-in, a reset link's page) left open across a browser restart is refused
/// as before: its page, reloaded, works. (A token of the form before marks, a bare proof, is
/// still compared: pages open across an upgrade keep working.)
struct CSRFTokens: Sendable {
    /// Keyed once; each token copies them (every page view makes one).
    private let keyedProof: HMAC<SHA256>
    private let keyedMark: HMAC<SHA256>

    init(secretKey: SecretKey) {
        self.keyedProof = HMAC<SHA256>(key: secretKey.derived(for: "csrf"))
        self.keyedMark = HMAC<SHA256>(key: secretKey.derived(for: "csrf-mark"))
    }

    func token(forSession sessionID: Int64) -> String { token(kind: "session", binding: "session:\(sessionID)") }
    func token(forVisitor value: String) -> String { token(kind: "visitor", binding: "visitor:\(value)") }

    /// Whether `candidate` carries the proof of `expected` (the token of the browser's binding now).
    func accepts(_ candidate: String, expecting expected: String) -> Bool {
        guard !expected.isEmpty else { return false }
        return constantTimeEquals(Array(Self.proof(of: candidate).utf8), Array(Self.proof(of: expected).utf8))
    }

    /// Whether Selfie made `candidate` for a session (whichever).
    func isMadeForASession(_ candidate: String) -> Bool {
        let parts = candidate.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        return constantTimeEquals(Array(parts[1].utf8), Array(mark(kind: "session", String(parts[0])).utf8))
    }

    private static func proof(of token: String) -> Substring {
        token.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    }

    private func token(kind: String, binding: String) -> String {
        let proof = Self.mac(keyedProof, binding)
        return proof + "." + mark(kind: kind, proof)
    }

    private func mark(kind: String, _ proof: String) -> String { Self.mac(keyedMark, kind + ":" + proof) }

    private static func mac(_ keyed: HMAC<SHA256>, _ text: String) -> String {
        var hmac = keyed
        var text = text
        text.withUTF8 { hmac.update(data: UnsafeRawBufferPointer($0)) }
        return hmac.finalize().withUnsafeBytes { Base64URL.encode($0) }
    }
}

/// Refuses state-changing browser requests that do not carry the page's CSRF token: in the
/// `_csrf` form field, the `X-CSRF-Token` header, or (for multipart uploads, whose body streams
/// past this point unread) the `_csrf` query parameter of the form's action. It guards the web's
/// form routes; the one route a provider posts back to is registered outside it.
struct CSRFMiddleware: RouterMiddleware {
    typealias Context = WebRequestContext
    let tokens: CSRFTokens
    /// A form from one of Selfie's pages shown before the browser's session ended is answered
    /// with "sign in again" (the account's pages); false where visitors have no account to sign
    /// in to (a share link's pages), which answer it as any refused form.
    var staleFormsSignIn = true
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
        guard let candidate, tokens.accepts(candidate, expecting: context.csrfToken) else {
            // A form from a page whose session has since ended (expired, or signed out here or in
            // another tab): ask to sign in again. Nothing is done either way.
            if staleFormsSignIn, context.hasStaleSession || (context.session == nil && candidate.map(tokens.isMadeForASession) == true) {
                throw SignInRequired()
            }
            context.logger.notice("CSRF token missing or wrong", metadata: ["path": "\(request.loggedPath)"])
            throw AppError.csrfRejected
        }
        return try await next(request, context)
    }
}


extension HTTPField.Name {
    static let csrfToken = Self("X-CSRF-Token")!
}
