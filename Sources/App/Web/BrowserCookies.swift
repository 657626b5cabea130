import Foundation
import Hummingbird
import SelfieCore

/// The two cookies Selfie sets, with the same attributes everywhere: `HttpOnly`, `SameSite=Lax`,
/// `Path=/`, and `Secure` when the public URL is https.
struct BrowserCookies: Sendable {
    static let sessionName = "selfie_session"
    /// A random value for visitors who are not signed in, so their forms (sign in, sign up) have
    /// something to bind a CSRF token to.
    static let visitorName = "selfie_visitor"

    let secure: Bool
    let sessionLifetime: Duration

    func session(_ token: String) -> Cookie {
        Cookie(
            name: Self.sessionName,
            value: token,
            maxAge: Int(sessionLifetime.components.seconds),
            path: "/",
            secure: secure,
            httpOnly: true,
            sameSite: .lax
        )
    }

    func clearedSession() -> Cookie {
        Cookie(name: Self.sessionName, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// The `state` of a sign-in with a provider, so that only the browser that started it can
    /// finish it. Scoped to `/auth`, gone after ten minutes.
    static let signInFlowName = "selfie_signin_flow"

    func signInFlow(_ state: String) -> Cookie {
        Cookie(
            name: Self.signInFlowName,
            value: state,
            maxAge: Int(SocialSignInService.flowLifetime),
            path: WebPath.providerFlowCookiePath,
            secure: secure,
            httpOnly: true,
            sameSite: .lax
        )
    }

    func clearedSignInFlow() -> Cookie {
        Cookie(name: Self.signInFlowName, value: "", maxAge: 0, path: WebPath.providerFlowCookiePath, secure: secure, httpOnly: true, sameSite: .lax)
    }

    func visitor(_ value: String) -> Cookie {
        Cookie(name: Self.visitorName, value: value, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// A sign-in waiting for its code (password or provider done). Scoped to `/signin`, ten minutes.
    static let pendingSignInName = "selfie_pending_sign_in"

    func pendingSignIn(_ token: String) -> Cookie {
        Cookie(
            name: Self.pendingSignInName,
            value: token,
            maxAge: Int(SecondFactorService.pendingSignInLifetime),
            path: WebPath.signIn,
            secure: secure,
            httpOnly: true,
            sameSite: .lax
        )
    }

    func clearedPendingSignIn() -> Cookie {
        Cookie(name: Self.pendingSignInName, value: "", maxAge: 0, path: WebPath.signIn, secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// "Remember this browser": a random token whose hash the server keeps for 30 days (revoked by
    /// "forget remembered browsers", turning two-step verification off, or an admin's reset).
    static let rememberedBrowserName = "selfie_remembered_browser"

    func rememberedBrowser(_ token: String) -> Cookie {
        Cookie(
            name: Self.rememberedBrowserName,
            value: token,
            maxAge: Int(SecondFactorService.rememberedBrowserLifetime),
            path: "/",
            secure: secure,
            httpOnly: true,
            sameSite: .lax
        )
    }
}
