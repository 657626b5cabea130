import Foundation
import HTTPTypes
import Hummingbird
import NIOHTTP1
import PostgresNIO
import SelfieCore

/// The words and statuses the surfaces answer the core's errors with. Web pages and the API
/// share these; each surface overrides the few it words differently (the API keeps the iOS
/// app's messages) before falling back to them.
enum ErrorCopy {
    /// The status and client-safe message for any error. Errors that are not written for clients
    /// (bugs, SQL, I/O) get a generic message for their status; their details stay in the log.
    static func appError(for error: any Error) -> AppError {
        switch error {
        case let error as AppError:
            return error
        case let error as InvalidFields:
            return AppError(.unprocessableContent, sentence(for: error))
        case let error as AccountError:
            return accountError(error)
        case let error as RateLimited:
            return rateLimited(error)
        case let error as PhotoError:
            return photoError(error)
        case let error as ProviderRefused:
            return providerRefused(error)
        case let error as SocialAccountError:
            return socialAccountError(error)
        case let error as AdminError:
            return adminError(error)
        case let error as SecondFactorError:
            return secondFactorError(error)
        case let error as AlbumError:
            return albumError(error)
        case let error as ShareLinkError:
            return shareLinkError(error)
        case let error as HTTPError:
            return AppError(error.status, error.body ?? genericMessage(for: error.status))
        case let error as any HTTPResponseError:
            // e.g. NIOTooManyBytesError from collecting a body over its limit (413)
            return AppError(error.status, genericMessage(for: error.status))
        case HTTPParserError.invalidEOFState:
            // The client went away mid-body (a dropped network): no one reads this answer, but it
            // is the client's doing, not a server failure.
            return AppError(.badRequest, "The request ended before all of its body arrived.")
        case BlobStoreError.unavailable:
            return AppError(.serviceUnavailable, "Photo storage is unavailable right now. Please try again shortly.")
        case BlobStoreError.insufficientStorage:
            return AppError(.insufficientStorage, "Photo storage is full right now. Please try again later.")
        case let error where DatabaseAvailability.isUnavailable(error):
            return AppError(.serviceUnavailable, genericMessage(for: .serviceUnavailable))
        case let error as RowRefused where error.isRejectedValue:
            return AppError(.badRequest, genericMessage(for: .badRequest))
        case let error as PSQLError where error.isRejectedValue:
            // A value our validation let through but the database refused: the input's fault.
            return AppError(.badRequest, genericMessage(for: .badRequest))
        case is DecodingError:
            return AppError(.badRequest, genericMessage(for: .badRequest))
        default:
            return AppError(.internalServerError, genericMessage(for: .internalServerError))
        }
    }

    static func genericMessage(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: "The request could not be understood."
        case 401: "Sign in first."
        case 403: "You do not have access to this."
        case 404: "There is nothing at this address."
        case 405: "This address does not accept that kind of request."
        case 408: "The request took too long to arrive. Please try again."
        case 413: "That is too large."
        case 415: "That kind of file is not accepted."
        case 429: "Too many attempts. Wait a little and try again."
        case 503: "Selfie is unavailable for a moment. Please try again shortly."
        case 500...: "Something went wrong on our side. Please try again."
        default: status.reasonPhrase
        }
    }

    // MARK: Accounts

    static func secondFactorError(_ error: SecondFactorError) -> AppError {
        switch error {
        case .codeRequired:
            AppError(.unauthorized, "Enter the 6-digit code from your authenticator app, or one of your recovery codes.")
        case .incorrectCode:
            AppError(.unauthorized, "That code is not right, or it was already used. Enter the current code from your authenticator app, or an unused recovery code.")
        case .notEnrolled: AppError(.conflict, "Two-step verification is not turned on for this account.")
        case .alreadyEnrolled: AppError(.conflict, "Two-step verification is already on for this account.")
        case .signInExpired: AppError(.unauthorized, "This sign-in has expired. Please sign in again.")
        case .passkeyRefused: AppError(.badRequest, "The passkey could not be used. Please try again.")
        case .passkeyNotFound: AppError(.notFound, "There is no such passkey on your account.")
        case .invalidPasskeyName: AppError(.unprocessableContent, "Give the passkey a name of 1 to 100 characters.")
        case .lastWayIn: AppError(.conflict, "This passkey is your only way to sign in. Set a password or link a provider before removing it.")
        }
    }

    static func accountError(_ error: AccountError) -> AppError {
        switch error {
        case .invalidCredentials: AppError(.unauthorized, "Invalid email or password.")
        case .disabled: AppError(.forbidden, "This account has been disabled.")
        case .emailNotVerified(let email):
            AppError(.forbidden, "Confirm your email address first: we have mailed a new link to \(email). Open it, then sign in.")
        case .linkNotValid:
            AppError(.gone, "This link has expired or was already used. Nothing was changed; ask for a new one.")
        case .lastAdministrator:
            AppError(.conflict, "You are the last administrator. Make someone else an admin before deleting your account.")
        case .confirmItsYou:
            AppError(.forbidden, "For your safety, confirm it's you: sign in again (it has been a while), then try once more.")
        case .exportInProgress:
            AppError(.conflict, "A copy of your data is already being downloaded. Wait until it has finished, then try again.")
        case .confirmAddressFirst:
            AppError(.forbidden, "Confirm your email address first: open the link we mailed you (your account page can send it again).")
        }
    }

    /// What a person reads next to a field the core refused.
    static func message(for field: Field, _ problem: FieldProblem) -> String {
        switch (field, problem) {
        case (.fullName, .missing): "Enter your name."
        case (_, .missing): "This is required."
        case (_, .tooLong(let maximum)): "Use at most \(maximum) characters."
        case (.fullName, .controlCharacters): "Use letters, spaces and punctuation only."
        case (_, .controlCharacters): "Use letters, digits, spaces and symbols only (no control characters)."
        case (_, .notAnEmailAddress): "Enter an email address like name@example.com."
        case (_, .wrongLength(let range)): "Use \(range.lowerBound) to \(range.upperBound) characters."
        case (_, .disallowedCharacters): "Use only letters, digits and underscores (_)."
        case (_, .passwordTooShort(let minimum)): "Use at least \(minimum) characters."
        case (_, .passwordTooLong(let maximum)):
            "Use at most \(maximum) bytes (about \(maximum) letters; fewer with accents or emoji)."
        case (_, .confirmationMismatch): "The two passwords do not match."
        case (.email, .taken): "An account with this email already exists. Sign in instead?"
        case (_, .taken): "This username is taken. Choose another."
        case (.currentPassword, .incorrect): "This is not your current password."
        case (_, .incorrect): "This is not correct."
        case (.email, .unchanged): "This is already your email address."
        case (_, .unchanged): "This is the current value."
        case (_, .requiredWithoutEmail): "Choose a username: your account has no email, so it is what you will sign in with."
        }
    }

    /// Every problem, keyed by the field's name (as the page templates read them).
    static func messages(for error: InvalidFields) -> [String: String] {
        Dictionary(uniqueKeysWithValues: error.problems.map { ($0.key.rawValue, message(for: $0.key, $0.value)) })
    }

    /// One line naming every problem, with `name` naming each field (the API's JSON names).
    static func sentence(for error: InvalidFields, name: (Field) -> String = \.rawValue) -> String {
        error.problems.sorted { $0.key.rawValue < $1.key.rawValue }
            .map { "\(name($0.key)): \(message(for: $0.key, $0.value))" }
            .joined(separator: " ")
    }

    static func rateLimited(_ error: RateLimited) -> AppError {
        let wait = minutes(error.retryAfter)
        let message = switch error.scope {
        case .account: "Too many failed sign-ins for this account. Try again in \(wait)."
        case .address: "Too many attempts from your network. Try again in \(wait)."
        case .shareLink: "Too many wrong passwords for this link. Try again in \(wait)."
        }
        return AppError(.tooManyRequests, message, headers: [.retryAfter: String(error.retryAfter)])
    }

    static func minutes(_ seconds: Int) -> String {
        let minutes = max(1, (seconds + 59) / 60)
        return minutes == 1 ? "a minute" : "\(minutes) minutes"
    }

    // MARK: Photos

    static func photoError(_ error: PhotoError) -> AppError {
        switch error {
        case .notMultipart:
            AppError(.unsupportedMediaType, "Send the photo as multipart/form-data with an `image` part.")
        case .malformed:
            AppError(.badRequest, "The upload could not be read. Please try again.")
        case .missingImage:
            AppError(.unprocessableContent, "Choose a photo to upload.")
        case .severalImages:
            AppError(.badRequest, "Send one photo per upload.")
        case .notAnImage:
            AppError(.unsupportedMediaType, "Only JPEG, PNG, GIF, WebP and HEIC photos can be uploaded.")
        case .unprocessable(let problem):
            AppError(.unprocessableContent, imageProblem(problem))
        case .tooLarge(let maximum):
            AppError(.contentTooLarge, "This photo is too large: the limit is \(ByteCountText.describe(maximum)).")
        case .overQuota(let quota, let available):
            AppError(
                .contentTooLarge,
                "This photo does not fit in your storage: \(ByteCountText.describe(available)) left of \(ByteCountText.describe(quota)). "
                    + "Delete photos you no longer need and empty the trash to make room."
            )
        case .titleTooLong(let maximum):
            AppError(.unprocessableContent, "Use at most \(maximum) characters for the caption.")
        case .titleHasControlCharacters:
            AppError(.unprocessableContent, "The caption contains characters that cannot be shown.")
        case .notFound:
            AppError(.notFound, "There is no such photo.")
        case .tooManyUploadsInProgress:
            AppError(
                .tooManyRequests,
                "Too many uploads are in progress. Wait for one to finish, then try again.",
                headers: [.retryAfter: "5"]
            )
        case .timedOut:
            AppError(.requestTimeout, "The upload took too long to arrive. Please try again on a better connection.")
        case .processingUnavailable:
            AppError(
                .serviceUnavailable,
                "The photo could not be processed just now. Please try again in a moment.",
                headers: [.retryAfter: "5"]
            )
        }
    }

    // MARK: Albums and share links

    static func albumError(_ error: AlbumError) -> AppError {
        switch error {
        case .notFound: AppError(.notFound, "There is no such album.")
        case .titleMissing: AppError(.unprocessableContent, "Give the album a name.")
        case .titleTooLong(let maximum): AppError(.unprocessableContent, "Use at most \(maximum) characters for the album's name.")
        case .descriptionTooLong(let maximum): AppError(.unprocessableContent, "Use at most \(maximum) characters for the description.")
        case .controlCharacters: AppError(.unprocessableContent, "The name or description contains characters that cannot be shown.")
        case .coverNotInAlbum: AppError(.unprocessableContent, "The cover must be one of the album's photos.")
        case .noPhotos: AppError(.unprocessableContent, "Select at least one photo first.")
        case .tooManyPhotos(let maximum): AppError(.unprocessableContent, "Select at most \(maximum) photos at once.")
        }
    }

    static func shareLinkError(_ error: ShareLinkError) -> AppError {
        switch error {
        case .notFound: AppError(.notFound, "This link does not exist, has expired or was turned off. Ask whoever shared it for a new one.")
        case .unknownExpiry: AppError(.unprocessableContent, "Choose how long the link works: 1, 7 or 30 days, or never.")
        case .targetMissing: AppError(.unprocessableContent, "Choose one album or one photo to share.")
        case .password(let problem): AppError(.unprocessableContent, "The link's password: \(message(for: .password, problem))")
        case .passwordRequired: AppError(.unauthorized, "This link has a password. Open the link and enter it first.")
        case .wrongPassword: AppError(.unauthorized, "That is not the link's password.")
        case .downloadNotAllowed: AppError(.forbidden, "Whoever shared these photos did not allow downloading them.")
        }
    }

    static func imageProblem(_ problem: ImageProblem) -> String {
        switch problem {
        case .unsupportedFormat: "This photo's format cannot be read. Use JPEG, PNG, GIF, WebP or HEIC."
        case .unreadable: "This photo could not be read: the file is damaged."
        case .truncated: "This photo is incomplete: the file was cut short. Please upload it again."
        case .tooManyPixels(let maximum):
            "This image has too many pixels: at most \(maximum >= 1_000_000 ? "\(maximum / 1_000_000) megapixels" : "\(maximum) pixels")."
        case .absurdAspectRatio: "This image is too narrow or too tall to show (more than 20 to 1)."
        }
    }

    // MARK: Providers

    static func providerRefused(_ refusal: ProviderRefused) -> AppError {
        switch refusal.error {
        case .notConfigured(let provider):
            AppError(.notFound, "Signing in with \"\(provider)\" is not available here.")
        case .providerUnavailable:
            AppError(.serviceUnavailable, "\(refusal.providerName) could not be reached to check your sign-in. Try again in a moment.")
        default:
            AppError(.unauthorized, "\(refusal.providerName) sign-in refused: \(refusal.error.reason).")
        }
    }

    static func socialAccountError(_ error: SocialAccountError) -> AppError {
        switch error {
        case .alreadyRegistered(let name):
            AppError(.conflict, "This \(name) account is already registered. Sign in instead.")
        case .notRegistered(let name):
            AppError(.unauthorized, "No Selfie account is linked to this \(name) account. Register first.")
        case .emailInUse(let email, let name):
            AppError(
                .conflict,
                "An account with the email \(email) already exists. Sign in to it with your password, then link \(name) from your account page."
            )
        case .linkedToAnotherAccount(let name):
            AppError(.conflict, "This \(name) account is already linked to another Selfie account.")
        case .notLinked:
            AppError(.notFound, "This sign-in method is not linked to your account.")
        case .lastWayToSignIn:
            AppError(.conflict, "This is the only way you can sign in. Set a password first, then unlink it.")
        case .flowExpired:
            AppError(.badRequest, "This sign-in has expired or was already used. Please start again.")
        }
    }

    // MARK: Admin

    static func adminError(_ error: AdminError) -> AppError {
        switch error {
        case .lastAdmin: AppError(.conflict, "This is the last administrator. Make someone else an admin first.")
        case .noSuchUser: AppError(.notFound, "There is no such user (any more).")
        case .invalidKeyName: AppError(.unprocessableContent, "Use 3 to 64 letters, digits, dots, dashes or underscores for the name.")
        case .keyNameReserved: AppError(.conflict, "That name belongs to the key from the environment.")
        case .keyNameTaken: AppError(.conflict, "An app key with this name already exists.")
        case .invalidQuota: AppError(.unprocessableContent, "Enter the quota as a whole number of MB, at least 1.")
        case .noSuchKey:
            AppError(.notFound, "There is no active app key with this name (the environment's key cannot be revoked here).")
        }
    }
}

extension HTTPResponse.Status {
    static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
}
