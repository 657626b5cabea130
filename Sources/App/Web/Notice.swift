import Hummingbird

/// Short messages shown once after a redirect, chosen by a fixed code in the URL so that no
/// text from the URL is ever shown on the page.
enum Notice: String {
    case signedOut = "signed-out"
    case welcome
    case passwordChanged = "password-changed"
    case otherSessionsEnded = "sessions-ended"
    case photoUploaded = "uploaded"
    case photoDeleted = "deleted"
    case userUpdated = "user-updated"
    case userDeleted = "user-deleted"
    case appKeyRevoked = "key-revoked"
    case identityLinked = "identity-linked"
    case identityUnlinked = "identity-unlinked"
    case passwordSet = "password-set"
    case providerCancelled = "provider-cancelled"
    case emailVerified = "email-verified"
    case emailVerifiedSignIn = "email-verified-sign-in"
    case verificationSent = "verification-sent"
    case passwordReset = "password-reset"
    case emailChangeRequested = "email-change-requested"
    case emailChanged = "email-changed"
    case emailChangedSignIn = "email-changed-sign-in"
    case accountDeleted = "account-deleted"
    case resetLinkSent = "reset-link-sent"
    case twoFactorDisabled = "two-factor-off"
    case signInExpired = "sign-in-expired"
    case browsersForgotten = "browsers-forgotten"
    case passkeyAdded = "passkey-added"
    case passkeyRenamed = "passkey-renamed"
    case passkeyRemoved = "passkey-removed"
    case twoFactorReset = "two-factor-reset"
    case photosDeleted = "photos-deleted"
    case albumCreated = "album-created"
    case albumUpdated = "album-updated"
    case albumDeleted = "album-deleted"
    case photosAdded = "photos-added"
    case photosRemoved = "photos-removed"
    case coverChosen = "cover-chosen"
    case linkRevoked = "link-revoked"
    case linksRevoked = "links-revoked"
    case photoTrashed = "trashed"
    case photosTrashed = "photos-trashed"
    case photosRestored = "restored"
    /// Fewer restored than chosen: their time in the trash was up, or they had left it already.
    case photosNotRestored = "not-restored"
    case trashEmptied = "trash-emptied"
    case quotaChanged = "quota-changed"
    /// A share from another app reached the server without the service worker: choose again.
    case shareAgain = "share-again"

    /// Its words: `notice-<code>` in `Locales/<language>/notices.ftl`.
    var text: LocalizedText { .message("notice-\(rawValue)") }

    static func message(from request: Request) -> LocalizedText? {
        request.uri.queryParameters["notice"].flatMap { Notice(rawValue: String($0))?.text }
    }
}
