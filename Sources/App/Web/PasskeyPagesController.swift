import Foundation
import Hummingbird
import SelfieCore

/// Passkeys in the browser: the JSON the page's script (`/assets/js/passkeys.js`) exchanges with
/// `navigator.credentials`, and the rename/remove forms. Every POST carries the page's CSRF token
/// (the script sends it as `X-CSRF-Token`). A finished ceremony answers 303 like a form post, so
/// the script goes where the redirect leads.
struct PasskeyPagesController {
    let passkeys: PasskeyService
    let webSignIn: WebSignIn
    let protection: BruteForceProtection

    /// WebAuthn JSON is small; the cap keeps a hostile body from being buffered.
    static let maximumBodyBytes = 64 * 1024
    static let timeoutMilliseconds = 300_000

    func addRoutes(forms: RouterGroup<WebRequestContext>, signedIn: RouterGroup<SignedInContext>, sensitive: RouterGroup<SignedInContext>) {
        let limited = forms.limited(.signIn, by: protection)
        limited.post(RouterPath(WebPath.signInPasskeyOptions), use: signInOptions)
        limited.post(RouterPath(WebPath.signInPasskey), use: signIn)
        sensitive.post(RouterPath(WebPath.passkeyOptions), use: creationOptions)
        sensitive.post(RouterPath(WebPath.passkeys), use: register)
        signedIn.post(WebPath.renamePasskeyPattern, use: rename)
        sensitive.post(WebPath.removePasskeyPattern, use: remove)
    }

    // MARK: Adding a passkey

    /// `PublicKeyCredentialCreationOptionsJSON` (WebAuthn Level 3 §5.1.1's JSON form).
    struct CreationOptionsJSON: Encodable {
        struct RelyingParty: Encodable { let id: String; let name: String }
        struct UserEntity: Encodable { let id: String; let name: String; let displayName: String }
        struct Parameter: Encodable { var type = "public-key"; let alg: Int }
        struct Descriptor: Encodable { var type = "public-key"; let id: String }
        struct Selection: Encodable {
            var residentKey = "required"
            var requireResidentKey = true
            var userVerification = "required"
        }

        let challenge: String
        let rp: RelyingParty
        let user: UserEntity
        /// ES256, then RS256 (Windows Hello).
        var pubKeyCredParams = [Parameter(alg: -7), Parameter(alg: -257)]
        var timeout = PasskeyPagesController.timeoutMilliseconds
        var attestation = "none"
        let excludeCredentials: [Descriptor]
        var authenticatorSelection = Selection()
    }

    func creationOptions(_ request: Request, context: SignedInContext) async throws -> Response {
        let options = try await passkeys.creationOptions(for: context.user)
        let json = CreationOptionsJSON(
            challenge: options.challenge,
            rp: .init(id: passkeys.relyingPartyID, name: passkeys.relyingPartyName),
            user: .init(id: options.userHandle, name: options.userName, displayName: options.userDisplayName),
            excludeCredentials: options.excludeCredentialIDs.map { .init(id: $0) }
        )
        return try JSONResponse(body: json).response(from: request, context: context)
    }

    /// What the script posts back from `create()`.
    struct RegistrationJSON: Decodable {
        struct Response: Decodable {
            let clientDataJSON: String
            let attestationObject: String
        }

        let response: Response
    }

    func register(_ request: Request, context: SignedInContext) async throws -> Response {
        let body = try await Self.decode(RegistrationJSON.self, from: request)
        let name = UserAgentSummary.describe(request.headers[.userAgent] ?? "")
        let passkey = try await passkeys.register(
            .init(clientDataJSON: body.response.clientDataJSON, attestationObject: body.response.attestationObject),
            name: name,
            for: context.user,
            inSession: context.session.sessionID,
            origin: context.origin(request)
        )
        context.logger.info("passkey added", metadata: ["passkey": "\(passkey.id)"])
        return .seeOther(WebPath.account(notice: .passkeyAdded))
    }

    // MARK: Signing in with a passkey

    /// `PublicKeyCredentialRequestOptionsJSON`: no allow list, so any passkey of the site answers
    /// (discoverable credentials, and the browser's autofill).
    struct RequestOptionsJSON: Encodable {
        let challenge: String
        let rpId: String
        var timeout = PasskeyPagesController.timeoutMilliseconds
        var userVerification = "required"
    }

    func signInOptions(_ request: Request, context: WebRequestContext) async throws -> Response {
        let json = RequestOptionsJSON(challenge: try await passkeys.signInChallenge(), rpId: passkeys.relyingPartyID)
        return try JSONResponse(body: json).response(from: request, context: context)
    }

    /// What the script posts back from `get()`.
    struct AssertionJSON: Decodable {
        struct Response: Decodable {
            let clientDataJSON: String
            let authenticatorData: String
            let signature: String
            let userHandle: String?
        }

        let rawId: String
        let response: Response
        /// Where the sign-in page was asked to lead (`?next=`).
        let next: String?
    }

    func signIn(_ request: Request, context: WebRequestContext) async throws -> Response {
        let body = try await Self.decode(AssertionJSON.self, from: request)
        let outcome: SignInService.Outcome
        do {
            outcome = try await webSignIn.signIn.passkey(
                .init(
                    credentialID: body.rawId,
                    clientDataJSON: body.response.clientDataJSON,
                    authenticatorData: body.response.authenticatorData,
                    signature: body.response.signature,
                    userHandle: body.response.userHandle
                ),
                origin: context.origin(request)
            )
        } catch SecondFactorError.passkeyRefused(let reason) {
            context.logger.notice("passkey sign-in refused", metadata: ["reason": "\(reason)", "ip": "\(context.remoteAddress)"])
            throw Refusal(.unauthorized, "error-passkey-sign-in")
        }
        return try await webSignIn.respond(to: outcome, redirectTo: SafeRedirect.localPath(body.next), request: request, context: context)
    }

    /// A small JSON body; malformed JSON is a 400 (`DecodingError`), a huge one a 413.
    private static func decode<Body: Decodable>(_ type: Body.Type, from request: Request) async throws -> Body {
        var request = request
        let body = try await request.collectBody(upTo: maximumBodyBytes)
        return try JSONDecoder().decode(type, from: Data(body.readableBytesView))
    }

    // MARK: Renaming and removing

    struct RenameForm: Decodable {
        var name: String?
    }

    func rename(_ request: Request, context: SignedInContext) async throws -> Response {
        guard let id = context.parameters.get("id", as: Int64.self) else { throw SecondFactorError.passkeyNotFound }
        let form = try await URLEncodedFormDecoder().decode(RenameForm.self, from: request, context: context)
        try await passkeys.rename(id, of: context.user, to: form.name ?? "")
        return .seeOther(WebPath.account(notice: .passkeyRenamed))
    }

    func remove(_ request: Request, context: SignedInContext) async throws -> Response {
        guard let id = context.parameters.get("id", as: Int64.self) else { throw SecondFactorError.passkeyNotFound }
        try await passkeys.remove(id, of: context.user, origin: context.origin(request))
        return .seeOther(WebPath.account(notice: .passkeyRemoved))
    }
}
