import Hummingbird
import Logging
import NIOCore
import SelfieCore

/// What a page needs from its request context to draw the shared layout.
protocol PageContext: ClientAddressProviding {
    var signedInUser: User? { get }
    var csrfToken: String { get }
    /// The language, time zone and theme the page is shown in.
    var viewer: Viewer { get }
}

/// The context of the browser pages. `WebSessionMiddleware` fills in the session (if any) and
/// the CSRF token that forms on the page must send back.
struct WebRequestContext: PageContext {
    typealias Source = AppRequestContext

    var coreContext: CoreRequestContextStorage
    let remoteAddress: String
    var session: ActiveSession?
    var csrfToken: String = ""
    var viewer = Viewer.default
    /// The browser sent a session cookie that no longer matches a live session (expired, signed
    /// out elsewhere): its forms are answered with "sign in again", not a CSRF error.
    var hasStaleSession = false

    var signedInUser: User? { session?.user }
    var maxUploadSize: Int { 64 * 1024 }

    init(source: AppRequestContext) {
        self.coreContext = source.coreContext
        self.remoteAddress = source.remoteAddress
    }

    func origin(_ request: Request) -> RequestOrigin { RequestOrigin(request, remoteAddress: remoteAddress) }
}

/// The context of pages that need a signed-in user: creating it fails without one, so a handler
/// in a `SignedInContext` group cannot forget the check.
struct SignedInContext: ChildRequestContext, PageContext {
    var coreContext: CoreRequestContextStorage
    let session: ActiveSession
    let remoteAddress: String
    let csrfToken: String
    let viewer: Viewer

    var user: User { session.user }
    var signedInUser: User? { session.user }
    var maxUploadSize: Int { 64 * 1024 }

    init(context: WebRequestContext) throws {
        guard let session = context.session else { throw SignInRequired() }
        self.coreContext = context.coreContext
        self.session = session
        self.remoteAddress = context.remoteAddress
        self.csrfToken = context.csrfToken
        self.viewer = context.viewer
    }

    func origin(_ request: Request) -> RequestOrigin { RequestOrigin(request, remoteAddress: remoteAddress) }
}

/// Thrown when a page needs a signed-in user and there is none: browsers are sent to sign in.
struct SignInRequired: Error {}
