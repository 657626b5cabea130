import Hummingbird
import SelfieCore

/// Finds the browser's session from its cookie and puts it in the context, together with the CSRF
/// token that this page's forms must send back. Visitors who are not signed in get a random
/// visitor cookie for their tokens to be bound to. A cookie that no longer matches a live session
/// is cleared. Runs outside the web's error pages, so its cookies go out with them too.
struct WebSessionMiddleware: RouterMiddleware {
    typealias Context = WebRequestContext
    let accounts: AccountService
    let users: UserRepository
    let cookies: BrowserCookies
    let csrf: CSRFTokens

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        let sent = request.cookies
        let browser = ViewerPreferences.browserChoices(of: request, cookies: sent)
        let sessionToken = sent[BrowserCookies.sessionName]?.value ?? ""
        var newVisitor: String?
        context.hasStaleSession = !sessionToken.isEmpty
        if !sessionToken.isEmpty, let session = try await accounts.session(forToken: sessionToken) {
            context.session = session
            RequestFacts.signedIn(session.user.id)
            context.hasStaleSession = false
            context.csrfToken = csrf.token(forSession: session.sessionID)
            // The browser's language and zone are kept on an account that has not chosen, once.
            if let keep = ViewerPreferences.toKeep(from: browser, account: session.user.preferences) {
                try await users.setPreferences(userID: session.user.id, keep, onlyUnset: true)
            }
        } else if let visitor = sent[BrowserCookies.visitorName]?.value, visitor.count == 22 {
            context.csrfToken = csrf.token(forVisitor: visitor)
        } else {
            let visitor = RandomToken.urlSafe(byteCount: 16)
            newVisitor = visitor
            context.csrfToken = csrf.token(forVisitor: visitor)
        }

        context.viewer = ViewerPreferences.viewer(browser: browser, account: context.session?.user.preferences)

        var response = try await next(request, context)
        if let newVisitor {
            response.setCookie(cookies.visitor(newVisitor))
        }
        let setsSessionCookie = response.headers[values: .setCookie].contains {
            $0.hasPrefix(BrowserCookies.sessionName + "=")
        }
        if !sessionToken.isEmpty, context.session == nil, !setsSessionCookie {
            response.setCookie(cookies.clearedSession())
        }
        return response
    }
}
