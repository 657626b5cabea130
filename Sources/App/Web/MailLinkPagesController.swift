import Hummingbird
import SelfieCore

/// The pages behind mailed links, and the forms that mail them: confirming an address, resetting a
/// forgotten password, confirming a new address (asked for on the account page).
///
/// A link's GET only shows a page with a button; the change happens on its POST. Mail scanners and
/// link previews open links, and a single-use link must not be used up by one of them.
struct MailLinkPagesController {
    let emails: AccountEmails
    let signIn: SignInService
    let pages: PageRenderer
    let cookies: BrowserCookies
    let protection: BruteForceProtection

    func addRoutes(forms: RouterGroup<WebRequestContext>, signedIn: RouterGroup<SignedInContext>) {
        forms.get(RouterPath(WebPath.verifyEmail), use: showVerifyEmail)
        // A password may be typed on these two: limited per client like a sign-in, as the
        // account's lockout counts it.
        forms.limited(.signIn, by: protection).post(RouterPath(WebPath.verifyEmail), use: verifyEmail)
        forms.get(RouterPath(WebPath.forgotPassword), use: showForgotPassword)
        forms.limited(.passwordResetRequest, by: protection).post(RouterPath(WebPath.forgotPassword), use: forgotPassword)
        forms.get(RouterPath(WebPath.forgotPasswordSent), use: showResetLinkSent)
        forms.get(RouterPath(WebPath.resetPassword), use: showResetPassword)
        forms.limited(.passwordResetRequest, by: protection).post(RouterPath(WebPath.resetPassword), use: resetPassword)
        forms.get(RouterPath(WebPath.confirmEmailChange), use: showConfirmEmailChange)
        forms.limited(.signIn, by: protection).post(RouterPath(WebPath.confirmEmailChange), use: confirmEmailChange)
        signedIn.post(RouterPath(WebPath.resendVerification), use: resendVerification)
    }

    struct ConfirmationForm: Decodable {
        var token: String?
        var currentPassword: String?

        enum CodingKeys: String, CodingKey {
            case token
            case currentPassword = "current_password"
        }

        func holder(_ context: WebRequestContext) -> LinkHolder {
            LinkHolder(signedInAs: context.session?.user.id, password: currentPassword)
        }
    }

    /// The words of one kind of confirmation link's page.
    private struct ConfirmationCopy {
        let path: String
        let heading: String
        let intro: String
        let button: String
    }

    private static let confirmAddress = ConfirmationCopy(
        path: WebPath.verifyEmail, heading: "message-confirm-email", intro: "message-confirm-email-intro", button: "message-confirm-email-button"
    )
    private static let confirmNewAddress = ConfirmationCopy(
        path: WebPath.confirmEmailChange, heading: "message-confirm-new-email", intro: "message-confirm-new-email-intro",
        button: "message-confirm-new-email-button"
    )

    /// A confirmation link's page (see `AccountEmails.requireHolder`): a button where this browser
    /// is signed in to the link's account; elsewhere the account's password with it, or for an
    /// account without a password a sign-in, which comes back here. (Not a sign-in for a password
    /// account: with `REQUIRE_VERIFIED_EMAIL` its sign-in waits for this very link.)
    private func confirmationPage(
        _ link: ConfirmationLink,
        token: String,
        copy: ConfirmationCopy,
        passwordError: String? = nil,
        request: Request,
        context: WebRequestContext
    ) throws -> Response {
        let words = pages.words(for: context)
        let email: [String: MessageArgument] = ["email": .text(link.email)]
        let signIn = MessagePage.Link(
            href: WebPath.signIn(returningTo: "\(copy.path)?token=\(PercentEncoding.encode(token))"), label: words("message-confirm-link-sign-in-button")
        )
        var page = MessagePage(heading: words(copy.heading), paragraphs: [words(copy.intro, email)])
        let button = MessagePage.Button(action: copy.path, token: token, label: words(copy.button, email))
        if link.signedIn {
            page.button = button
        } else if link.accountHasPassword {
            page.paragraphs.append(words("message-confirm-link-password"))
            page.button = button
            page.button?.password = .init(label: words("field-current-password"), error: passwordError)
        } else {
            page.paragraphs.append(words("message-confirm-link-sign-in"))
            page.links = [signIn]
        }
        return try pages.renderMessage(page, context: context, status: passwordError == nil ? .ok : .unprocessableContent)
            .response(from: request, context: context)
    }

    /// The link's page again with the password's problem next to its field.
    private func confirmationRefused(
        _ problems: InvalidFields,
        link: ConfirmationLink?,
        token: String,
        copy: ConfirmationCopy,
        request: Request,
        context: WebRequestContext
    ) throws -> Response {
        guard let link else { return try linkNotValid(request, context: context) }
        let error = ErrorCopy(words: pages.words(for: context)).messages(for: problems)[Field.currentPassword.rawValue]
        return try confirmationPage(link, token: token, copy: copy, passwordError: error, request: request, context: context)
    }

    // MARK: Confirming an address

    func showVerifyEmail(_ request: Request, context: WebRequestContext) async throws -> Response {
        let token = request.uri.queryParameters["token"].map(String.init) ?? ""
        guard let link = try await emails.verificationTarget(token: token, signedInAs: context.session?.user.id) else {
            return try linkNotValid(request, context: context)
        }
        return try confirmationPage(link, token: token, copy: Self.confirmAddress, request: request, context: context)
    }

    func verifyEmail(_ request: Request, context: WebRequestContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(ConfirmationForm.self, from: request, context: context)
        let token = form.token ?? ""
        do {
            let userID = try await emails.verifyEmail(token: token, by: form.holder(context), origin: context.origin(request))
            // The link confirms an address; it does not sign anyone in (a password or a second
            // factor still does that).
            if context.session?.user.id == userID { return .seeOther(WebPath.gallery(notice: .emailVerified)) }
            return .seeOther(WebPath.signIn(notice: .emailVerifiedSignIn))
        } catch AccountError.linkNotValid {
            return try linkNotValid(request, context: context)
        } catch let problems as InvalidFields {
            let link = try await emails.verificationTarget(token: token, signedInAs: context.session?.user.id)
            return try confirmationRefused(problems, link: link, token: token, copy: Self.confirmAddress, request: request, context: context)
        }
    }

    func resendVerification(_ request: Request, context: SignedInContext) async throws -> Response {
        do {
            try await emails.sendVerification(to: context.user)
        } catch is RateLimited {
            throw Refusal(.tooManyRequests, "error-too-many-links-today")
        }
        return .seeOther(WebPath.account(notice: .verificationSent))
    }

    // MARK: Forgotten passwords

    struct ForgotPasswordPage: Sendable {
        var email = ""
        var error: String?
    }

    func showForgotPassword(_ request: Request, context: WebRequestContext) async throws -> Response {
        try pages.render(.forgotPassword, title: "title-forgot-password", page: ForgotPasswordPage(), context: context)
            .response(from: request, context: context)
    }

    struct ForgotPasswordForm: Decodable {
        var email: String?
    }

    /// The same page, status and timing for every plausible address: the work (looking the
    /// account up, queueing its link) runs after the answer, so not even the time it takes tells
    /// whether the address has an account.
    func forgotPassword(_ request: Request, context: WebRequestContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(ForgotPasswordForm.self, from: request, context: context)
        let email = (form.email ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard EmailAddress.isPlausible(email) else {
            let page = ForgotPasswordPage(email: email, error: ErrorCopy(words: pages.words(for: context)).message(for: .email, .notAnEmailAddress))
            return try pages.render(.forgotPassword, title: "title-forgot-password", page: page, context: context, status: .unprocessableContent)
                .response(from: request, context: context)
        }
        let (emails, origin) = (self.emails, context.origin(request))
        Task { await emails.requestPasswordReset(email: email, origin: origin) }
        // Redirected, so that reloading "check your mail" mails nothing again.
        return .seeOther(WebPath.forgotPasswordSent)
    }

    func showResetLinkSent(_ request: Request, context: WebRequestContext) async throws -> Response {
        let words = pages.words(for: context)
        let page = MessagePage(
            heading: words("message-check-mail"),
            paragraphs: [
                // Without the address: the page is the same, byte for byte, whatever was typed.
                words("message-reset-sent"),
                words("message-reset-no-mail"),
            ],
            links: [.init(href: WebPath.signIn, label: words("message-back-to-sign-in"))]
        )
        return try pages.renderMessage(page, context: context)
            .response(from: request, context: context)
    }

    struct ResetPasswordPage: Sendable {
        let email: String
        let token: String
        var errors: [String: String] = [:]
    }

    func showResetPassword(_ request: Request, context: WebRequestContext) async throws -> Response {
        let token = request.uri.queryParameters["token"].map(String.init) ?? ""
        guard let email = try await emails.resetTarget(token: token) else { return try linkNotValid(request, context: context, forReset: true) }
        return try pages.render(.resetPassword, title: "title-reset-password", page: ResetPasswordPage(email: email, token: token), context: context)
            .response(from: request, context: context)
    }

    struct ResetPasswordForm: Decodable {
        var token: String?
        var newPassword: String?
        var newPasswordConfirmation: String?

        enum CodingKeys: String, CodingKey {
            case token
            case newPassword = "new_password"
            case newPasswordConfirmation = "new_password_confirmation"
        }
    }

    /// A new password through the link: every session of the account ends (this browser's too,
    /// if it had one), and the person signs in with the new password.
    func resetPassword(_ request: Request, context: WebRequestContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(ResetPasswordForm.self, from: request, context: context)
        let token = form.token ?? ""
        do {
            _ = try await signIn.completeReset(
                token: token,
                newPassword: form.newPassword ?? "",
                confirmation: form.newPasswordConfirmation ?? "",
                origin: context.origin(request)
            )
        } catch let problems as InvalidFields {
            guard let email = try await emails.resetTarget(token: token) else { return try linkNotValid(request, context: context, forReset: true) }
            let page = ResetPasswordPage(email: email, token: token, errors: ErrorCopy(words: pages.words(for: context)).messages(for: problems))
            return try pages.render(.resetPassword, title: "title-reset-password", page: page, context: context, status: .unprocessableContent)
                .response(from: request, context: context)
        } catch AccountError.linkNotValid {
            return try linkNotValid(request, context: context, forReset: true)
        }
        var response = Response.seeOther(WebPath.signIn(notice: .passwordReset))
        response.setCookie(cookies.clearedSession())
        return response
    }

    // MARK: A new address

    func showConfirmEmailChange(_ request: Request, context: WebRequestContext) async throws -> Response {
        let token = request.uri.queryParameters["token"].map(String.init) ?? ""
        guard let link = try await emails.emailChangeTarget(token: token, signedInAs: context.session?.user.id) else {
            return try linkNotValid(request, context: context)
        }
        return try confirmationPage(link, token: token, copy: Self.confirmNewAddress, request: request, context: context)
    }

    func confirmEmailChange(_ request: Request, context: WebRequestContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(ConfirmationForm.self, from: request, context: context)
        let token = form.token ?? ""
        do {
            let user = try await emails.confirmEmailChange(token: token, by: form.holder(context), origin: context.origin(request))
            if context.session?.user.id == user.id { return .seeOther(WebPath.account(notice: .emailChanged)) }
            return .seeOther(WebPath.signIn(notice: .emailChangedSignIn))
        } catch AccountError.linkNotValid {
            return try linkNotValid(request, context: context)
        } catch let problems as InvalidFields where problems[.email] == .taken {
            throw Refusal(.conflict, "error-address-taken-meanwhile")
        } catch let problems as InvalidFields {
            let link = try await emails.emailChangeTarget(token: token, signedInAs: context.session?.user.id)
            return try confirmationRefused(problems, link: link, token: token, copy: Self.confirmNewAddress, request: request, context: context)
        }
    }

    // MARK: Links that do not work

    /// Unknown, used or expired: a page that says so (410 Gone) and what to do; nothing changed.
    private func linkNotValid(_ request: Request, context: WebRequestContext, forReset: Bool = false) throws -> Response {
        let words = pages.words(for: context)
        let page = MessagePage(
            heading: words("message-link-dead"),
            paragraphs: [
                words("message-link-dead-intro"),
                forReset ? words("message-link-dead-reset") : words("message-link-dead-other"),
            ],
            links: forReset
                ? [.init(href: WebPath.forgotPassword, label: words("message-mail-new-link"))]
                : [.init(href: WebPath.account, label: words("message-go-to-account")), .init(href: WebPath.signIn, label: words("nav-sign-in"))]
        )
        return try pages.renderMessage(page, context: context, status: .gone)
            .response(from: request, context: context)
    }
}

/// What `Templates/message.mustache` shows.
struct MessagePage: Sendable {
    struct Button: Sendable {
        let action: String
        let token: String
        let label: String
        /// A password to type with it (a confirmation link opened where its account is not signed in).
        var password: PasswordField?
    }

    struct PasswordField: Sendable {
        let label: String
        let error: String?
    }

    struct Link: Sendable {
        let href: String
        let label: String
    }

    let heading: String
    var paragraphs: [String]
    var button: Button?
    var links: [Link] = []
}
