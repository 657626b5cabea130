import Hummingbird
import SelfieCore

/// Sign up, sign in and sign out in the browser.
struct AuthPagesController {
    let accounts: AccountService
    let webSignIn: WebSignIn
    let pages: PageRenderer
    let cookies: BrowserCookies
    let protection: BruteForceProtection
    /// "Continue with …" buttons, one per configured OpenID Connect provider.
    let providers: [ProviderButton]

    func addRoutes(to pages: RouterGroup<WebRequestContext>) {
        pages.get(RouterPath(WebPath.signUp), use: showSignUp)
        pages.limited(.signUp, by: protection).post(RouterPath(WebPath.signUp), use: signUp)
        pages.get(RouterPath(WebPath.signUpSent), use: showSignUpSent)
        pages.get(RouterPath(WebPath.signIn), use: showSignIn)
        pages.limited(.signIn, by: protection).post(RouterPath(WebPath.signIn), use: signIn)
        pages.post(RouterPath(WebPath.signOut), use: signOut)
    }

    // MARK: Sign up

    struct SignUpForm: Decodable {
        var fullName: String?
        var email: String?
        var username: String?
        var password: String?
        var passwordConfirmation: String?

        enum CodingKeys: String, CodingKey {
            case fullName = "full_name"
            case email, username
            case password
            case passwordConfirmation = "password_confirmation"
        }
    }

    struct SignUpPage: Sendable {
        var fullName = ""
        var email = ""
        var username = ""
        var errors: [String: String] = [:]
        var providers: [ProviderButton] = []
    }

    func showSignUp(_ request: Request, context: WebRequestContext) async throws -> Response {
        if context.session != nil { return .seeOther(WebPath.gallery) }
        return try renderSignUp(SignUpPage(), context: context).response(from: request, context: context)
    }

    func signUp(_ request: Request, context: WebRequestContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(SignUpForm.self, from: request, context: context)
        var signUp = SignUpRequest(
            fullName: form.fullName ?? "",
            email: form.email ?? "",
            username: form.username,
            password: form.password ?? "",
            passwordConfirmation: form.passwordConfirmation ?? ""
        )
        // The browser's own choice (picker cookie, else Accept-Language), not the English fallback.
        signUp.language = ViewerPreferences.browserChoices(of: request).language?.rawValue
        do {
            // The same answer whether the address was free or someone's: the owner of a taken
            // one gets a notice instead of a new account.
            if let credentials = try await accounts.signUpQuietly(signUp, origin: context.origin(request)) {
                context.logger.info("user signed up", metadata: ["user": "\(credentials.user.id)"])
            }
        } catch let problems as InvalidFields {
            let page = SignUpPage(fullName: signUp.fullName, email: signUp.email, username: signUp.username ?? "", errors: ErrorCopy(words: pages.words(for: context)).messages(for: problems))
            return try renderSignUp(page, context: context, status: .unprocessableContent)
                .response(from: request, context: context)
        }
        // Redirected, so that reloading "check your mail" sends nothing again (a second sign-up
        // with the address would tell its new owner that someone tried to take it).
        var response = Response.seeOther(WebPath.signUpSent)
        response.setCookie(cookies.signUpSent(to: signUp.email))
        return response
    }

    /// "Check your mail", naming the address the sign-up was sent to (the same page whether it
    /// made an account or told the address's owner).
    func showSignUpSent(_ request: Request, context: WebRequestContext) async throws -> Response {
        guard let address = request.cookies[BrowserCookies.signUpSentName]?.value.removingPercentEncoding,
            EmailAddress.isPlausible(address)
        else { return .seeOther(WebPath.signUp) }
        let words = pages.words(for: context)
        let page = MessagePage(
            heading: words("message-check-mail"),
            paragraphs: [words("message-sign-up-sent", ["email": .text(address)]), words("message-no-mail-yet")],
            links: [.init(href: WebPath.signIn, label: words("nav-sign-in"))]
        )
        return try pages.renderMessage(page, context: context).response(from: request, context: context)
    }

    private func renderSignUp(_ page: SignUpPage, context: WebRequestContext, status: HTTPResponse.Status = .ok) throws
        -> HTML
    {
        var page = page
        page.providers = providers
        return try pages.render(.signUp, title: "title-sign-up", page: page, context: context, status: status)
    }

    // MARK: Sign in

    struct SignInForm: Decodable {
        var email: String?
        var password: String?
        var next: String?
    }

    struct SignInPage: Sendable {
        var email = ""
        var next = ""
        var error: String?
        var providers: [ProviderButton] = []
    }

    func showSignIn(_ request: Request, context: WebRequestContext) async throws -> Response {
        let next = request.uri.queryParameters["next"].map(String.init)
        if context.session != nil { return .seeOther(SafeRedirect.localPath(next)) }
        return try pages.render(
            .signIn,
            title: "title-sign-in",
            page: SignInPage(next: SafeRedirect.localPath(next, default: ""), providers: providers),
            context: context,
            notice: Notice.message(from: request)
        ).response(from: request, context: context)
    }

    func signIn(_ request: Request, context: WebRequestContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(SignInForm.self, from: request, context: context)
        // The field is named `email` but takes a username as well.
        let email = (form.email ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            let outcome = try await webSignIn.signIn.password(
                login: email,
                password: form.password ?? "",
                proof: WebSignIn.proof(from: request),
                origin: context.origin(request)
            )
            return try await webSignIn.respond(to: outcome, redirectTo: SafeRedirect.localPath(form.next), request: request, context: context)
        } catch AccountError.invalidCredentials {
            context.logger.notice("sign-in failed", metadata: ["ip": "\(context.remoteAddress)"])
            return try signInRefused(email: email, next: form.next, error: pages.words(for: context)("error-sign-in-incorrect"), status: .unauthorized, request: request, context: context)
        } catch let error as AccountError {
            let refusal = ErrorCopy(words: pages.words(for: context)).accountError(error)
            return try signInRefused(email: email, next: form.next, error: refusal.message, status: refusal.status, request: request, context: context)
        }
    }

    private func signInRefused(
        email: String,
        next: String?,
        error: String,
        status: HTTPResponse.Status,
        request: Request,
        context: WebRequestContext
    ) throws -> Response {
        let page = SignInPage(email: email, next: SafeRedirect.localPath(next, default: ""), error: error, providers: providers)
        return try pages.render(.signIn, title: "title-sign-in", page: page, context: context, status: status)
            .response(from: request, context: context)
    }

    // MARK: Sign out

    func signOut(_ request: Request, context: WebRequestContext) async throws -> Response {
        if let session = context.session {
            try await accounts.signOut(session, origin: context.origin(request))
        }
        var response = Response.seeOther(WebPath.signIn(notice: .signedOut))
        response.setCookie(cookies.clearedSession())
        return response
    }
}
