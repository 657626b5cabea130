import Foundation
import Hummingbird
import SelfieCore

/// Where a page's language, time zone and theme come from: the account's choice when signed in,
/// else the browser's cookies (the footer's picker; the zone the page script reads from the
/// browser), else `Accept-Language`, else English, UTC and the system's theme.
enum ViewerPreferences {
    /// Set by the footer's picker (signed in or not), a year long.
    static let languageCookie = "selfie_language"
    static let themeCookie = "selfie_theme"
    /// Written by `Public/assets/js/viewer.js` from `Intl.DateTimeFormat().resolvedOptions().timeZone`.
    static let timeZoneCookie = "selfie_zone"

    /// What the browser says without an account (`browserChoices(of:)`).
    typealias BrowserChoices = (language: Language?, timeZone: TimeZone?, theme: Theme?)

    static func viewer(of request: Request, account: AccountPreferences?) -> Viewer {
        viewer(browser: browserChoices(of: request), account: account)
    }

    static func viewer(browser: BrowserChoices, account: AccountPreferences?) -> Viewer {
        let language = account?.language.flatMap(Language.init(rawValue:)) ?? browser.language ?? .english
        let timeZone = account?.timeZone.flatMap(zone(named:)) ?? browser.timeZone
        let theme = account?.theme.flatMap(Theme.init(rawValue:)) ?? browser.theme ?? .system
        return Viewer(language: language, timeZone: timeZone, theme: theme)
    }

    /// What the browser says without an account: its cookies, then `Accept-Language`. The
    /// `Cookie` header is parsed once (Hummingbird parses it anew on every `request.cookies`).
    static func browserChoices(of request: Request) -> BrowserChoices {
        browserChoices(of: request, cookies: request.cookies)
    }

    /// The same, from the request's cookies already parsed.
    static func browserChoices(of request: Request, cookies: Cookies) -> BrowserChoices {
        let language = cookies[languageCookie].flatMap { Language(rawValue: $0.value) }
            ?? request.headers[.acceptLanguage].flatMap(Language.preferred(byAcceptLanguage:))
        let timeZone = cookies[timeZoneCookie].flatMap { zone(named: $0.value.removingPercentEncoding ?? $0.value) }
        let theme = cookies[themeCookie].flatMap { Theme(rawValue: $0.value) }
        return (language, timeZone, theme)
    }

    /// An IANA zone name this machine knows ("Europe/Berlin"); nil for anything else.
    static func zone(named name: String) -> TimeZone? {
        guard (1...64).contains(name.utf8.count), name.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else { return nil }
        return TimeZone(identifier: name)
    }

    /// What a signed-in browser can teach an account that has not chosen: its language and zone,
    /// kept once (`UserRepository.setPreferences(onlyUnset:)`); nil when there is nothing to keep.
    static func toKeep(from browser: BrowserChoices, account: AccountPreferences) -> AccountPreferences? {
        let language = account.language == nil ? browser.language?.rawValue : nil
        let timeZone = account.timeZone == nil ? browser.timeZone?.identifier : nil
        guard language != nil || timeZone != nil else { return nil }
        return AccountPreferences(language: language, timeZone: timeZone)
    }
}
