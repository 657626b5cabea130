import Foundation
import Hummingbird
import Logging
import SelfieCore

/// The browser's error path: whatever a page throws becomes an HTML error page with the right
/// status (and the signed-in user in the header when there is one), or — for a page that needs
/// a signed-in user — a redirect to sign in. Also the router's last resort for requests that
/// match no route.
struct WebErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let pages: PageRenderer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            return response(for: error, request: request, context: context)
        }
    }

    func response(for error: any Error, request: Request, context: Context) -> Response {
        if error is SignInRequired {
            return .seeOther(WebPath.signIn(returningTo: Self.returnPath(for: request)))
        }
        if case .confirmItsYou? = error as? AccountError, (context as? any PageContext)?.signedInUser != nil {
            // Back to this page after confirming; a refused form post returns to the account page.
            let returnPath = request.method.isReading ? Self.returnPath(for: request) : WebPath.account
            return .seeOther(WebPath.confirmItsYou(returningTo: returnPath))
        }
        // Outside the pages (an unknown address) there is no account: the browser's own choice.
        let viewer = (context as? any PageContext)?.viewer ?? ViewerPreferences.viewer(of: request, account: nil)
        let answer = ErrorCopy(words: Words(translations: pages.translations, viewer: viewer)).appError(for: error)
        ErrorLogging.record(error, answer: answer, request: request, logger: context.logger)
        let user = (context as? any PageContext)?.signedInUser
        var response = pages.renderError(status: answer.status, message: answer.message, viewer: viewer, user: user)
            .response(from: request, context: context)
        response.headers.append(contentsOf: answer.headers)
        return response
    }

    /// Where to come back to after signing in: this page for a GET (or HEAD), else the home page.
    static func returnPath(for request: Request) -> String {
        guard request.method.isReading else { return WebPath.home }
        return request.uri.query.map { "\(request.uri.path)?\($0)" } ?? request.uri.path
    }
}

/// What every surface does with an error it answers: server-side failures are logged with the
/// request id (never shown), outages and refused uploads are counted.
enum ErrorLogging {
    static func record(_ error: any Error, answer: AppError, request: Request, logger: Logger) {
        if DatabaseAvailability.isUnavailable(error) { AppMetrics.databaseUnavailable() }
        if error is PhotoError { AppMetrics.uploadRefused(status: answer.status.code) }
        if answer.status.code >= 500 {
            logger.error("request failed", metadata: ["path": "\(request.loggedPath)", "error": "\(String(reflecting: error))"])
        }
    }
}

extension HTTPRequest.Method {
    /// GET or HEAD: asks for a page rather than sending a form.
    var isReading: Bool { self == .get || self == .head }
}

