import Hummingbird
import SelfieCore

/// Every browser page's address, in one place: the patterns the routes are registered under and
/// the links that lead to them, so a link cannot drift from its route unnoticed.
enum WebPath {
    static let home = "/"
    static let signUp = "/signup"
    /// "Check your mail", where a sign-up that went through is redirected (a reload sends nothing again).
    static let signUpSent = "/signup/sent"
    static let signIn = "/signin"
    static let signOut = "/signout"
    static let gallery = "/gallery"
    static let newPhoto = "/photos/new"
    /// POST: the upload form's target.
    static let photos = "/photos"
    static let photoPattern: RouterPath = "/photos/:id"
    static let deletePhotoPattern: RouterPath = "/photos/:id/delete"
    static let originalPattern: RouterPath = "/photos/:id/original"
    /// POST: what the gallery's and albums' selection bar does with the selected photos.
    static let photoSelection = "/photos/selection"
    /// POST: deleting the selected photos, once confirmed.
    static let deleteSelection = "/photos/selection/delete"
    static let albums = "/albums"
    static let trash = "/trash"
    /// POST: deletes everything in the trash for good.
    static let emptyTrash = "/trash/empty"
    static let restoreAll = "/trash/restore-all"
    static let albumPattern: RouterPath = "/albums/:id"
    static let editAlbumPattern: RouterPath = "/albums/:id/edit"
    static let deleteAlbumPattern: RouterPath = "/albums/:id/delete"
    /// GET: the owner's links; POST: a new one.
    static let links = "/links"
    static let revokeLinkPattern: RouterPath = "/links/:id/revoke"
    /// What a share link opens (no account needed); its photos, images and ZIP below it.
    static let sharedPattern: RouterPath = "/s/:token"
    static let sharedPhotoPattern: RouterPath = "/s/:token/photos/:photo"
    static let sharedImagePattern: RouterPath = "/s/:token/photos/:photo/:rendition"
    static let sharedDownloadPattern: RouterPath = "/s/:token/download"
    static let account = "/account"
    static let accountPassword = "/account/password"
    static let endOtherSessions = "/account/sessions/end-others"
    static let linkProviderPattern: RouterPath = "/account/link/:provider"
    static let unlinkIdentityPattern: RouterPath = "/account/identities/:id/unlink"
    static let providerStartPattern: RouterPath = "/auth/:provider/start"
    static let providerCallbackPattern: RouterPath = "/auth/:provider/callback"
    static let verifyEmail = "/verify-email"
    static let resendVerification = "/account/verify-email/resend"
    static let forgotPassword = "/password/forgot"
    /// "Check your mail", where a reset link asked for is redirected (a reload mails nothing again).
    static let forgotPasswordSent = "/password/forgot/sent"
    static let resetPassword = "/password/reset"
    static let changeEmail = "/account/email"
    static let confirmEmailChange = "/account/email/confirm"
    static let deleteAccount = "/account/delete"
    static let exportData = "/account/export"
    /// "Confirm it's you": the password again (or a new sign-in) before a sensitive change.
    static let confirmItsYou = "/account/confirm"
    /// The code step of a sign-in for an account with two-step verification.
    static let signInCode = "/signin/code"
    static let signInPasskeyOptions = "/signin/passkey/options"
    static let signInPasskey = "/signin/passkey"
    static let twoFactor = "/account/two-factor"
    static let disableTwoFactor = "/account/two-factor/disable"
    static let recoveryCodes = "/account/two-factor/recovery-codes"
    static let forgetBrowsers = "/account/two-factor/forget-browsers"
    static let passkeyOptions = "/account/passkeys/options"
    static let passkeys = "/account/passkeys"
    static let renamePasskeyPattern: RouterPath = "/account/passkeys/:id/rename"
    static let removePasskeyPattern: RouterPath = "/account/passkeys/:id/remove"
    /// Where the provider's cookie is scoped (`/auth/…`).
    static let providerFlowCookiePath = "/auth"

    static func signIn(returningTo path: String) -> String { "\(signIn)?next=\(PercentEncoding.encode(path))" }
    static func confirmItsYou(returningTo path: String) -> String { "\(confirmItsYou)?next=\(PercentEncoding.encode(path))" }
    static func signIn(notice: Notice) -> String { "\(signIn)?notice=\(notice.rawValue)" }
    static func gallery(notice: Notice) -> String { "\(gallery)?notice=\(notice.rawValue)" }
    static func gallery(after position: PhotoPosition) -> String { "\(gallery)?after=\(position.text)" }
    static func photo(_ publicID: String, inAlbum albumID: String?) -> String {
        albumID.map { "\(photo(publicID))?album=\(PercentEncoding.encode($0))" } ?? photo(publicID)
    }
    static func album(_ publicID: String) -> String { "\(albums)/\(PercentEncoding.encode(publicID))" }
    static func album(_ publicID: String, notice: Notice) -> String { "\(album(publicID))?notice=\(notice.rawValue)" }
    static func album(_ publicID: String, after position: PhotoPosition) -> String { "\(album(publicID))?after=\(position.text)" }
    static func editAlbum(_ publicID: String) -> String { "\(album(publicID))/edit" }
    static func deleteAlbum(_ publicID: String) -> String { "\(album(publicID))/delete" }
    static func trash(notice: Notice) -> String { "\(trash)?notice=\(notice.rawValue)" }
    static func albums(notice: Notice) -> String { "\(albums)?notice=\(notice.rawValue)" }
    static func links(notice: Notice) -> String { "\(links)?notice=\(notice.rawValue)" }
    static func revokeLink(_ publicID: String) -> String { "\(links)/\(PercentEncoding.encode(publicID))/revoke" }
    /// A share link's pages, relative to its token (which is base64url: nothing to encode).
    static func shared(_ token: String) -> String { "\(ShareLinkService.path)/\(token)" }
    static func shared(_ token: String, after position: PhotoPosition) -> String { "\(shared(token))?after=\(position.text)" }
    static func sharedPhoto(_ token: String, _ publicID: String) -> String { "\(shared(token))/photos/\(PercentEncoding.encode(publicID))" }
    static func sharedImage(_ token: String, _ publicID: String, _ name: RenditionName) -> String {
        "\(sharedPhoto(token, publicID))/\(name.rawValue)"
    }
    static func sharedDownload(_ token: String) -> String { "\(shared(token))/download" }
    static func account(notice: Notice) -> String { "\(account)?notice=\(notice.rawValue)" }
    static func photo(_ publicID: String) -> String { "\(photos)/\(PercentEncoding.encode(publicID))" }
    static func deletePhoto(_ publicID: String) -> String { "\(photo(publicID))/delete" }
    static func original(_ publicID: String) -> String { "\(photo(publicID))/original" }
    /// The links mailed to people (relative: the mail adds `PUBLIC_URL`).
    static func verifyEmail(token: String) -> String { "\(verifyEmail)?token=\(PercentEncoding.encode(token))" }
    static func resetPassword(token: String) -> String { "\(resetPassword)?token=\(PercentEncoding.encode(token))" }
    static func confirmEmailChange(token: String) -> String { "\(confirmEmailChange)?token=\(PercentEncoding.encode(token))" }
    /// Where a provider sends the browser back (handed to the core for its `redirect_uri`).
    @Sendable static func providerCallback(_ provider: String) -> String { "/auth/\(PercentEncoding.encode(provider))/callback" }
}
