import Hummingbird
import SelfieCore

/// Who may use `/api/uploads`: the app with its API token, or the browser with its session cookie
/// and the page's CSRF token in `X-CSRF-Token` (a cookie alone is never enough: another site's
/// page could send it).
struct UploaderMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let accounts: AccountService
    let csrf: CSRFTokens

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        if request.headers[.authorization] != nil {
            guard let presented = APITokenMiddleware.token(fromAuthorization: request.headers[.authorization]),
                let token = try await accounts.token(presented)
            else { throw APIError.tokenRequired }
            context.apiToken = token
            RequestFacts.signedIn(token.user.id)
        } else if let cookie = request.cookies[BrowserCookies.sessionName]?.value, !cookie.isEmpty {
            guard let session = try await accounts.session(forToken: cookie) else { throw APIError.tokenRequired }
            guard let presented = request.headers[.csrfToken], csrf.accepts(presented, expecting: csrf.token(forSession: session.sessionID)) else {
                context.logger.notice("CSRF token missing or wrong", metadata: ["path": "\(request.loggedPath)"])
                throw AppError.csrfRejected
            }
            context.sessionUser = session.user
            RequestFacts.signedIn(session.user.id)
        } else {
            throw APIError.tokenRequired
        }
        context.origin = RequestOrigin(request, remoteAddress: context.remoteAddress)
        return try await next(request, context)
    }
}

/// The context of upload routes: creating it fails without a token or a session.
struct UploaderContext: ChildRequestContext, ClientAddressProviding {
    var coreContext: CoreRequestContextStorage
    let user: User
    let origin: RequestOrigin
    var remoteAddress: String { origin.ipAddress }
    var maxUploadSize: Int { 64 * 1024 }

    init(context: APIRequestContext) throws {
        guard let user = context.apiToken?.user ?? context.sessionUser, let origin = context.origin else { throw APIError.tokenRequired }
        self.coreContext = context.coreContext
        self.user = user
        self.origin = origin
    }
}
