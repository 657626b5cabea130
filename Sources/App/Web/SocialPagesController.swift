import Hummingbird
import SelfieCore

/// A button that starts the code flow with a provider ("Continue with Google", "Link Google").
struct ProviderButton: Sendable {
    let name: String
    let displayName: String

    init(_ provider: OIDCProviderConfiguration) {
        self.name = provider.name
        self.displayName = provider.displayName
    }
}

/// "Continue with Apple/Google/…" in the browser: the OpenID Connect authorization-code flow with
/// PKCE, `state` bound to the browser by a cookie, and a nonce; plus linking and unlinking
/// providers from the account page.
struct SocialPagesController {
    let social: SocialSignInService
    let webSignIn: WebSignIn
    let cookies: BrowserCookies
    let protection: BruteForceProtection

    /// `forms` checks CSRF tokens; `providerReturns` does not: a provider posting back (Sign in
    /// with Apple) cannot carry one, and its `state`, bound to the browser, protects it instead.
    func addRoutes(
        forms: RouterGroup<WebRequestContext>,
        providerReturns: RouterGroup<WebRequestContext>,
        signedIn: RouterGroup<SignedInContext>,
        sensitive: RouterGroup<SignedInContext>
    ) {
        // Each start stores a flow and each callback calls the provider: both count as sign-ins.
        let limited = forms.limited(.signIn, by: protection)
        limited.post(WebPath.providerStartPattern, use: start)
        limited.get(WebPath.providerCallbackPattern, use: callback)
        providerReturns.post(WebPath.providerCallbackPattern, use: returnFromFormPost)
        sensitive.post(WebPath.linkProviderPattern, use: startLink)
        sensitive.post(WebPath.unlinkIdentityPattern, use: unlink)
    }

    struct StartForm: Decodable {
        var next: String?
    }

    func start(_ request: Request, context: WebRequestContext) async throws -> Response {
        let provider = try context.parameters.require("provider")
        let form = try await URLEncodedFormDecoder().decode(StartForm.self, from: request, context: context)
        let (state, url) = try await social.startFlow(provider: provider, linking: nil, returnTo: SafeRedirect.localPath(form.next))
        return leave(for: url, state: state)
    }

    func startLink(_ request: Request, context: SignedInContext) async throws -> Response {
        let provider = try context.parameters.require("provider")
        let (state, url) = try await social.startFlow(provider: provider, linking: context.user, returnTo: WebPath.account)
        return leave(for: url, state: state)
    }

    private func leave(for url: String, state: String) -> Response {
        var response = Response.seeOther(url)
        response.setCookie(cookies.signInFlow(state))
        return response
    }

    /// Sign in with Apple comes back with a cross-site POST, which carries no `SameSite=Lax`
    /// cookie (neither the session nor the flow's): it is turned into the GET below, a top-level
    /// navigation that does carry them.
    func returnFromFormPost(_ request: Request, context: WebRequestContext) async throws -> Response {
        let provider = try context.parameters.require("provider")
        var request = request
        let body = String(buffer: try await request.collectBody(upTo: CSRFMiddleware.maximumFormBytes))
        let fields = ["code", "state", "error"].compactMap { name in URLEncodedForm.value(of: name, in: body).map { (name, $0) } }
        return .seeOther(WebPath.providerCallback(provider) + "?" + PercentEncoding.query(fields))
    }

    /// The provider sends the browser back here with `code` and `state`, or with `error` when the
    /// person cancelled.
    func callback(_ request: Request, context: WebRequestContext) async throws -> Response {
        let provider = try context.parameters.require("provider")
        var fields: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { fields[String(name)] = String(value) }
        let origin = context.origin(request)
        if fields["error"] != nil {
            var response = Response.seeOther(
                context.session == nil ? WebPath.signIn(notice: .providerCancelled) : WebPath.account(notice: .providerCancelled)
            )
            response.setCookie(cookies.clearedSignInFlow())
            return response
        }
        guard let state = fields["state"], let code = fields["code"], !code.isEmpty,
            let expected = request.cookies[BrowserCookies.signInFlowName]?.value, !expected.isEmpty,
            constantTimeEquals(Array(state.utf8), Array(expected.utf8))
        else {
            throw Refusal(.badRequest, "error-provider-flow-browser")
        }
        let (identity, flow) = try await social.finishFlow(provider: provider, state: state, code: code, origin: origin)
        var response: Response
        if let linkUserID = flow.linkUserID {
            guard let session = context.session, session.user.id == linkUserID else {
                throw Refusal(.forbidden, "error-provider-link-account")
            }
            try await social.link(identity, to: session.user, inSession: session.sessionID, origin: origin)
            response = .seeOther(WebPath.account(notice: .identityLinked))
        } else {
            let (outcome, created) = try await webSignIn.signIn.provider(identity, proof: WebSignIn.proof(from: request), origin: origin)
            context.logger.info("signed in with a provider", metadata: ["provider": "\(provider)", "new": "\(created)"])
            response = try await webSignIn.respond(
                to: outcome,
                redirectTo: created ? WebPath.gallery(notice: .welcome) : flow.returnTo,
                request: request,
                context: context
            )
        }
        response.setCookie(cookies.clearedSignInFlow())
        return response
    }

    func unlink(_ request: Request, context: SignedInContext) async throws -> Response {
        guard let id = context.parameters.get("id", as: Int64.self) else { throw SocialAccountError.notLinked }
        try await social.unlink(identityID: id, of: context.user, origin: context.origin(request))
        return .seeOther(WebPath.account(notice: .identityUnlinked))
    }
}
