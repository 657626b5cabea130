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

    var message: String {
        switch self {
        case .signedOut: "You are signed out."
        case .welcome: "Welcome to Selfie! Your account is ready."
        case .passwordChanged: "Your password was changed. Your other sessions were signed out."
        case .otherSessionsEnded: "Your other sessions were signed out."
        case .photoUploaded: "Your photo was uploaded."
        case .photoDeleted: "The photo was deleted."
        case .userUpdated: "Done. The account was updated."
        case .userDeleted: "The account, its photos and its sessions were deleted."
        case .appKeyRevoked: "The app key was revoked."
        case .identityLinked: "Linked. You can now sign in with it."
        case .identityUnlinked: "Unlinked. It can no longer be used to sign in to this account."
        case .passwordSet: "Your password is set. You can now sign in with your email or username and password."
        case .providerCancelled: "The sign-in was cancelled."
        case .emailVerified: "Your email address is confirmed. Thank you!"
        case .emailVerifiedSignIn: "Your email address is confirmed. Sign in to continue."
        case .verificationSent: "We sent you a new link. It works for 48 hours; check your spam folder if it does not arrive."
        case .passwordReset: "Your password was changed and every session was signed out. Sign in with your new password."
        case .emailChangeRequested:
            "We sent a link to your new address. Your account keeps its current address until you open it (within 24 hours)."
        case .emailChanged: "Your email address was changed."
        case .emailChangedSignIn: "Your email address was changed. Sign in with the new one."
        case .accountDeleted: "Your account, your photos and your sessions were deleted. Goodbye!"
        case .resetLinkSent: "A password reset link was mailed to this user. It works for one hour."
        case .signInExpired: "That sign-in took too long. Please sign in again."
        case .twoFactorDisabled: "Two-step verification is off. Your password alone now signs you in."
        case .browsersForgotten: "Every browser will ask for a code at its next sign-in."
        case .passkeyAdded: "Your passkey is ready. Next time, choose “Sign in with a passkey”."
        case .passkeyRenamed: "The passkey was renamed."
        case .passkeyRemoved: "The passkey was removed. It can no longer be used to sign in."
        case .twoFactorReset: "This user's two-step verification and passkeys were removed. Their password alone signs them in now."
        }
    }

    static func message(from request: Request) -> String? {
        request.uri.queryParameters["notice"].flatMap { Notice(rawValue: String($0))?.message }
    }
}
