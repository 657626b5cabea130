import Foundation
import Hummingbird
import SelfieCore

/// The footer's picker on every page: the language and the colours, kept in cookies for anyone
/// and on the account when signed in (so another browser shows the same). Back to the page it
/// was sent from.
struct PreferencesPagesController {
    let users: UserRepository
    let cookies: BrowserCookies

    func addRoutes(to forms: RouterGroup<WebRequestContext>) {
        forms.post("/preferences", use: choose)
    }

    struct ChoiceForm: Decodable {
        let language: String?
        let theme: String?
    }

    func choose(_ request: Request, context: WebRequestContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(ChoiceForm.self, from: request, context: context)
        let language = form.language.flatMap(Language.init(rawValue:))
        let theme = form.theme.flatMap(Theme.init(rawValue:))
        guard language != nil || theme != nil else {
            throw Refusal(.badRequest, "error-preferences")
        }
        if let user = context.signedInUser {
            try await users.setPreferences(userID: user.id, AccountPreferences(language: language?.rawValue, theme: theme?.rawValue))
        }
        var response = Response.seeOther(Self.returnPath(request))
        if let language { response.setCookie(cookies.preference(ViewerPreferences.languageCookie, language.rawValue)) }
        if let theme { response.setCookie(cookies.preference(ViewerPreferences.themeCookie, theme.rawValue)) }
        return response
    }

    /// The page the form was on, when the browser says so and it is ours; else the home page.
    static func returnPath(_ request: Request) -> String {
        guard let referer = request.headers[.referer], let url = URL(string: referer), let host = url.host,
            host == request.head.authority?.split(separator: ":").first.map(String.init) ?? host
        else { return WebPath.home }
        let path = url.path.isEmpty ? "/" : url.path
        return SafeRedirect.localPath(url.query.map { "\(path)?\($0)" } ?? path, default: WebPath.home)
    }
}
