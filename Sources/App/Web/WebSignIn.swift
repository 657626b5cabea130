import Hummingbird
import SelfieCore

/// The browser's end of every way in: turns a `SignInService.Outcome` into cookies. Signed in: a
/// new session (the one the browser had ends) and on to `location`. Owing a code: the sign-in is
/// parked (its cookie scoped to `/signin`) and the browser goes to the code step. It decides
/// nothing about who may sign in; `SignInService` does.
struct WebSignIn: Sendable {
    let signIn: SignInService
    let cookies: BrowserCookies

    /// What the browser brings for the second factor: its "remember this browser" cookie.
    static func proof(from request: Request) -> SignInService.SecondFactorProof {
        SignInService.SecondFactorProof(rememberedBrowser: request.cookies[BrowserCookies.rememberedBrowserName]?.value)
    }

    func respond(
        to outcome: SignInService.Outcome,
        redirectTo location: String = WebPath.gallery(notice: .welcome),
        request: Request,
        context: WebRequestContext
    ) async throws -> Response {
        switch outcome {
        case .needsSecondFactor(let credentials, let identity):
            var response = Response.seeOther(WebPath.signInCode)
            response.setCookie(cookies.pendingSignIn(try await signIn.park(credentials, linking: identity, returnTo: location)))
            return response
        case .signedIn(let credentials):
            let token = try await signIn.startSession(
                for: credentials,
                replacing: context.session,
                userAgent: request.headers[.userAgent] ?? "",
                ipAddress: context.remoteAddress
            )
            var response = Response.seeOther(location)
            response.setCookie(cookies.session(token))
            return response
        }
    }
}
