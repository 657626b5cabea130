import Foundation
import Hummingbird
import SelfieCore

/// The cookies Selfie sets, with the same attributes everywhere: `HttpOnly`, `SameSite=Lax`, and
/// `Secure` when the public URL is https; each with its path and lifetime.
struct BrowserCookies: Sendable {
    static let sessionName = "selfie_session"
    /// A random value for visitors who are not signed in, so their forms (sign in, sign up) have
    /// something to bind a CSRF token to.
    static let visitorName = "selfie_visitor"
    /// The `state` of a sign-in with a provider, so that only the browser that started it can
    /// finish it. Scoped to `/auth`, gone after ten minutes.
    static let signInFlowName = "selfie_signin_flow"
    /// A sign-in waiting for its code (password or provider done). Scoped to `/signin`, ten minutes.
    static let pendingSignInName = "selfie_pending_sign_in"
    /// "Remember this browser": a random token whose hash the server keeps for 30 days (revoked by
    /// "forget remembered browsers", turning two-step verification off, or an admin's reset).
    static let rememberedBrowserName = "selfie_remembered_browser"

    /// The address a sign-up was sent to, for its "check your mail" page only (path
    /// `/signup/sent`, ten minutes): the page after the redirect names it, so a typo shows.
    static let signUpSentName = "selfie_sign_up_sent"

    /// A share link's password was right: a proof scoped to that link's path (`/s/<token>`), for
    /// a day at most and never past the link's expiry.
    static let shareUnlockName = "selfie_share"

    let secure: Bool
    let sessionLifetime: Duration

    func session(_ token: String) -> Cookie {
        cookie(Self.sessionName, token, maxAge: Int(sessionLifetime.components.seconds))
    }

    func clearedSession() -> Cookie { cookie(Self.sessionName, "", maxAge: 0) }

    func signUpSent(to address: String) -> Cookie {
        cookie(Self.signUpSentName, PercentEncoding.encode(address), maxAge: 600, path: WebPath.signUpSent)
    }

    func signInFlow(_ state: String) -> Cookie {
        cookie(Self.signInFlowName, state, maxAge: Int(SocialSignInService.flowLifetime), path: WebPath.providerFlowCookiePath)
    }

    func clearedSignInFlow() -> Cookie { cookie(Self.signInFlowName, "", maxAge: 0, path: WebPath.providerFlowCookiePath) }

    /// Lives as long as the browser session.
    func visitor(_ value: String) -> Cookie { cookie(Self.visitorName, value, maxAge: nil) }

    func pendingSignIn(_ token: String) -> Cookie {
        cookie(Self.pendingSignInName, token, maxAge: Int(SecondFactorService.pendingSignInLifetime), path: WebPath.signIn)
    }

    func clearedPendingSignIn() -> Cookie { cookie(Self.pendingSignInName, "", maxAge: 0, path: WebPath.signIn) }

    func rememberedBrowser(_ token: String) -> Cookie {
        cookie(Self.rememberedBrowserName, token, maxAge: Int(SecondFactorService.rememberedBrowserLifetime))
    }

    func shareUnlock(_ proof: String, token: String, expiresAt: Date?) -> Cookie {
        let day = 86400
        let untilExpiry = expiresAt.map { max(0, Int($0.timeIntervalSinceNow)) } ?? day
        return cookie(Self.shareUnlockName, proof, maxAge: min(day, untilExpiry), path: WebPath.shared(token))
    }

    /// A choice from the footer (language, colours), a year long.
    func preference(_ name: String, _ value: String) -> Cookie { cookie(name, value, maxAge: 365 * 86400) }

    private func cookie(_ name: String, _ value: String, maxAge: Int?, path: String = "/") -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: path, secure: secure, httpOnly: true, sameSite: .lax)
    }
}
