import Hummingbird
import QRCode
import SelfieCore

/// Two-step verification in the browser: the code step of a sign-in, setting up an authenticator
/// app (QR code drawn on the server), recovery codes, turning it off, and forgetting remembered
/// browsers.
struct SecondFactorPagesController {
    let secondFactor: SecondFactorService
    let webSignIn: WebSignIn
    let accountPage: AccountPageRenderer
    let pages: PageRenderer
    let cookies: BrowserCookies
    let protection: BruteForceProtection

    func addRoutes(forms: RouterGroup<WebRequestContext>, signedIn: RouterGroup<SignedInContext>, sensitive: RouterGroup<SignedInContext>) {
        forms.get(RouterPath(WebPath.signInCode), use: showCodeStep)
        // A code is a guess like a password: the same per-address limit (and the account's lockout).
        forms.limited(.signIn, by: protection).post(RouterPath(WebPath.signInCode), use: submitCode)
        sensitive.get(RouterPath(WebPath.twoFactor), use: showSetup)
        let codeChecked = sensitive.limited(.signIn, by: protection)
        codeChecked.post(RouterPath(WebPath.twoFactor), use: confirmSetup)
        codeChecked.post(RouterPath(WebPath.disableTwoFactor), use: disable)
        codeChecked.post(RouterPath(WebPath.recoveryCodes), use: regenerateRecoveryCodes)
        signedIn.post(RouterPath(WebPath.forgetBrowsers), use: forgetBrowsers)
    }

    // MARK: The code step of a sign-in

    struct CodePage: Sendable {
        var error: String?
        var remember = false
        let rememberDays = Int(SecondFactorService.rememberedBrowserLifetime / 86400)
    }

    struct CodeForm: Decodable {
        var code: String?
        var remember: String?
    }

    func showCodeStep(_ request: Request, context: WebRequestContext) async throws -> Response {
        guard try await parkedSignIn(request) != nil else { return expired() }
        return try renderCodeStep(CodePage(), context: context).response(from: request, context: context)
    }

    func submitCode(_ request: Request, context: WebRequestContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(CodeForm.self, from: request, context: context)
        guard let (token, pending) = try await parkedSignIn(request) else { return expired() }
        let remember = form.remember != nil
        let credentials: UserCredentials
        do {
            credentials = try await webSignIn.signIn.complete(pending, code: form.code, origin: context.origin(request))
        } catch let error as SecondFactorError where error == .incorrectCode || error == .codeRequired {
            context.logger.notice("second-factor code refused", metadata: ["ip": "\(context.remoteAddress)"])
            let page = CodePage(error: ErrorCopy(words: pages.words(for: context)).secondFactorError(error).message, remember: remember)
            return try renderCodeStep(page, context: context, status: .unauthorized).response(from: request, context: context)
        }
        try await webSignIn.signIn.unpark(token: token)
        var response = try await webSignIn.respond(to: .signedIn(credentials), redirectTo: pending.returnTo, request: request, context: context)
        response.setCookie(cookies.clearedPendingSignIn())
        if remember {
            response.setCookie(cookies.rememberedBrowser(try await webSignIn.signIn.rememberBrowser(for: credentials.user)))
        }
        return response
    }

    /// The cookie's token and the sign-in it parks, or nil when there is none (or it expired).
    private func parkedSignIn(_ request: Request) async throws -> (token: String, pending: SignInService.ParkedSignIn)? {
        guard let token = request.cookies[BrowserCookies.pendingSignInName]?.value,
            let pending = try await webSignIn.signIn.parked(token: token)
        else { return nil }
        return (token, pending)
    }

    private func expired() -> Response {
        var response = Response.seeOther(WebPath.signIn(notice: .signInExpired))
        response.setCookie(cookies.clearedPendingSignIn())
        return response
    }

    private func renderCodeStep(_ page: CodePage, context: WebRequestContext, status: HTTPResponse.Status = .ok) throws -> HTML {
        try pages.render(.signInCode, title: "title-sign-in-code", page: page, context: context, status: status)
    }

    // MARK: Setting up an authenticator app

    struct SetupPage: Sendable {
        /// Server-drawn SVG: our encoder escapes the only text in it (the title).
        let qrCode: String
        /// The QR code's `otpauth:` URI as a link: someone setting up on the phone that holds the
        /// authenticator app cannot scan its own screen.
        let appLink: String
        let secret: String
        var error: String?
    }

    struct RecoveryCodesPage: Sendable {
        let codes: [String]
        let isFirstSet: Bool
    }

    struct CodeOnlyForm: Decodable {
        var code: String?
    }

    func showSetup(_ request: Request, context: SignedInContext) async throws -> Response {
        do {
            return try await renderSetup(context: context).response(from: request, context: context)
        } catch SecondFactorError.alreadyEnrolled {
            return .seeOther(WebPath.account + "#two-factor")
        }
    }

    func confirmSetup(_ request: Request, context: SignedInContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(CodeOnlyForm.self, from: request, context: context)
        do {
            let codes = try await secondFactor.confirmEnrolment(for: context.user, code: form.code ?? "", origin: context.origin(request))
            return try renderRecoveryCodes(RecoveryCodesPage(codes: codes, isFirstSet: true), context: context).response(from: request, context: context)
        } catch SecondFactorError.incorrectCode {
            let message = pages.words(for: context)("error-setup-code-incorrect")
            return try await renderSetup(context: context, error: message, status: .unprocessableContent).response(from: request, context: context)
        }
    }

    private func renderRecoveryCodes(_ page: RecoveryCodesPage, context: SignedInContext) throws -> HTML {
        try pages.render(.recoveryCodes, title: "title-recovery-codes", page: page, context: context)
    }

    private func renderSetup(context: SignedInContext, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> HTML {
        let enrolment = try await secondFactor.beginEnrolment(for: context.user)
        let symbol = try QRCodeSymbol(text: enrolment.uri, errorCorrectionLevel: .medium)
        let page = SetupPage(qrCode: symbol.svg(title: pages.words(for: context)("setup-qr-title"), width: 232, height: 232), appLink: enrolment.uri, secret: enrolment.secret, error: error)
        return try pages.render(.twoFactorSetup, title: "title-two-factor-setup", page: page, context: context, status: status)
    }

    // MARK: Turning it off, new recovery codes, remembered browsers

    func disable(_ request: Request, context: SignedInContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(CodeOnlyForm.self, from: request, context: context)
        do {
            try await secondFactor.disable(for: context.user, code: form.code ?? "", origin: context.origin(request))
        } catch SecondFactorError.incorrectCode {
            return try await refusedOnAccountPage(context: context, request: request)
        }
        return .seeOther(WebPath.account(notice: .twoFactorDisabled))
    }

    func regenerateRecoveryCodes(_ request: Request, context: SignedInContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(CodeOnlyForm.self, from: request, context: context)
        do {
            let codes = try await secondFactor.regenerateRecoveryCodes(for: context.user, code: form.code ?? "", origin: context.origin(request))
            return try renderRecoveryCodes(RecoveryCodesPage(codes: codes, isFirstSet: false), context: context).response(from: request, context: context)
        } catch SecondFactorError.incorrectCode {
            return try await refusedOnAccountPage(context: context, request: request)
        }
    }

    func forgetBrowsers(_ request: Request, context: SignedInContext) async throws -> Response {
        try await secondFactor.forgetBrowsers(of: context.user, origin: context.origin(request))
        return .seeOther(WebPath.account(notice: .browsersForgotten))
    }

    private func refusedOnAccountPage(context: SignedInContext, request: Request) async throws -> Response {
        let message = ErrorCopy(words: pages.words(for: context)).secondFactorError(.incorrectCode).message
        return try await accountPage.render(context: context, status: .unprocessableContent) { page in
            page.twoFactorError = message
        }.response(from: request, context: context)
    }
}
