import Foundation
import HTTPTypes
import Hummingbird
import NIOHTTP1
import PostgresNIO
import SelfieCore

/// The statuses the surfaces answer the core's errors with, and their words, from
/// `Locales/<language>/errors.ftl` in the viewer's language (pages) or in English (the API, whose
/// own overrides live in `APIError`). Nothing here writes a sentence itself.
struct ErrorCopy {
    let words: Words

    private func error(_ status: HTTPResponse.Status, _ key: String, _ arguments: [String: MessageArgument] = [:], headers: HTTPFields = [:]) -> AppError {
        AppError(status, words(key, arguments), headers: headers)
    }

    /// The status and client-safe message for any error. Errors that are not written for clients
    /// (bugs, SQL, I/O) get a generic message for their status; their details stay in the log.
    func appError(for error: any Error) -> AppError {
        switch error {
        case let error as AppError:
            return error
        case let refusal as Refusal:
            return AppError(refusal.status, words(refusal.key, refusal.arguments))
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
            return self.error(.badRequest, "error-body-cut-short")
        case BlobStoreError.unavailable:
            return self.error(.serviceUnavailable, "error-storage-unavailable")
        case BlobStoreError.insufficientStorage:
            return self.error(.insufficientStorage, "error-storage-full")
        case let error where DatabaseAvailability.isUnavailable(error):
            return AppError(.serviceUnavailable, genericMessage(for: .serviceUnavailable))
        case let error as RowRefused where error.isRejectedValue:
            return AppError(.badRequest, genericMessage(for: .badRequest))
        case let error as PSQLError where error.isRejectedValue:
            // A value our validation let through but the database refused: the input's fault.
            return AppError(.badRequest, genericMessage(for: .badRequest))
        case let error as TransactionError where (error.closureError as? PSQLError)?.isRejectedValue == true:
            // The same, refused inside a transaction (a NUL byte in a login, counted for lockout).
            return AppError(.badRequest, genericMessage(for: .badRequest))
        case is DecodingError, is URLEncodedFormError:
            // A form with a field twice or a broken percent escape is the client's error too.
            return AppError(.badRequest, genericMessage(for: .badRequest))
        default:
            return AppError(.internalServerError, genericMessage(for: .internalServerError))
        }
    }

    func genericMessage(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400, 401, 403, 404, 405, 408, 413, 415, 429, 503: words("error-status-\(status.code)")
        case 500...: words("error-status-500")
        default: status.reasonPhrase
        }
    }

    // MARK: Accounts

    func secondFactorError(_ error: SecondFactorError) -> AppError {
        switch error {
        case .codeRequired: self.error(.unauthorized, "error-code-required")
        case .incorrectCode: self.error(.unauthorized, "error-code-incorrect")
        case .notEnrolled: self.error(.conflict, "error-two-factor-off")
        case .alreadyEnrolled: self.error(.conflict, "error-two-factor-on")
        case .signInExpired: self.error(.unauthorized, "error-sign-in-expired")
        case .passkeyRefused: self.error(.badRequest, "error-passkey-refused")
        case .passkeyNotFound: self.error(.notFound, "error-passkey-not-found")
        case .invalidPasskeyName: self.error(.unprocessableContent, "error-passkey-name")
        case .lastWayIn: self.error(.conflict, "error-passkey-last-way-in")
        }
    }

    func accountError(_ error: AccountError) -> AppError {
        switch error {
        case .invalidCredentials: self.error(.unauthorized, "error-invalid-credentials")
        case .disabled: self.error(.forbidden, "error-account-disabled")
        case .emailNotVerified(let email, let mailed):
            self.error(.forbidden, mailed ? "error-email-not-verified" : "error-email-not-verified-no-new-link", ["email": .text(email)])
        case .linkNotValid: self.error(.gone, "message-link-dead-intro")
        case .lastAdministrator: self.error(.conflict, "error-last-administrator")
        case .confirmItsYou: self.error(.forbidden, "error-confirm-its-you")
        case .exportInProgress: self.error(.conflict, "error-export-in-progress")
        case .confirmAddressFirst: self.error(.forbidden, "error-confirm-address-first")
        case .signInToUseLink: self.error(.forbidden, "error-sign-in-to-use-link")
        }
    }

    /// What a person reads next to a field the core refused.
    func message(for field: Field, _ problem: FieldProblem) -> String {
        switch (field, problem) {
        case (.fullName, .missing): words("error-field-name-missing")
        case (.currentPassword, .missing): words("error-field-current-password-missing")
        case (_, .missing): words("error-field-missing")
        case (_, .tooLong(let maximum)): words("error-field-too-long", ["maximum": .text(String(maximum))])
        case (.fullName, .controlCharacters): words("error-field-name-characters")
        case (_, .controlCharacters): words("error-field-control-characters")
        case (_, .notAnEmailAddress): words("error-field-not-an-email")
        case (_, .notASCII): words("error-field-email-ascii")
        case (_, .wrongLength(let range)): words("error-field-length", ["minimum": .text(String(range.lowerBound)), "maximum": .text(String(range.upperBound))])
        case (_, .disallowedCharacters): words("error-field-username-characters")
        case (_, .passwordTooShort(let minimum)): words("error-field-password-short", ["minimum": .text(String(minimum))])
        case (_, .passwordTooLong(let maximum)): words("error-field-password-long", ["maximum": .text(String(maximum))])
        case (_, .confirmationMismatch): words("error-field-passwords-differ")
        case (.email, .taken): words("error-field-email-taken")
        case (_, .taken): words("error-field-username-taken")
        case (.currentPassword, .incorrect): words("error-field-current-password")
        case (_, .incorrect): words("error-field-incorrect")
        case (.email, .unchanged): words("error-field-email-unchanged")
        case (_, .unchanged): words("error-field-unchanged")
        case (_, .requiredWithoutEmail): words("error-field-username-required")
        }
    }

    /// Every problem, keyed by the field's name (as the page templates read them).
    func messages(for error: InvalidFields) -> [String: String] {
        Dictionary(uniqueKeysWithValues: error.problems.map { ($0.key.rawValue, message(for: $0.key, $0.value)) })
    }

    /// One line naming every problem, with `name` naming each field (the API's JSON names).
    func sentence(for error: InvalidFields, name: (Field) -> String = \.rawValue) -> String {
        error.problems.sorted { $0.key.rawValue < $1.key.rawValue }
            .map { words("error-field-named", ["field": .text(name($0.key)), "problem": .text(message(for: $0.key, $0.value))]) }
            .joined(separator: " ")
    }

    func rateLimited(_ error: RateLimited) -> AppError {
        let minutes = max(1, (error.retryAfter + 59) / 60)
        let key = switch error.scope {
        case .account: "error-too-many-sign-ins"
        case .address: "error-too-many-attempts"
        case .user: "error-too-many-of-yours"
        case .shareLink: "error-too-many-link-passwords"
        }
        return self.error(.tooManyRequests, key, ["minutes": .number(minutes)], headers: [.retryAfter: String(error.retryAfter)])
    }

    // MARK: Photos

    func photoError(_ error: PhotoError) -> AppError {
        let language = words.language
        switch error {
        case .notMultipart: return self.error(.unsupportedMediaType, "error-photo-not-multipart")
        case .malformed: return self.error(.badRequest, "error-photo-malformed")
        case .missingImage: return self.error(.unprocessableContent, "error-photo-missing")
        case .severalImages: return self.error(.badRequest, "error-photo-several")
        case .severalTitles: return self.error(.badRequest, "error-photo-several-titles")
        case .notAnImage: return self.error(.unsupportedMediaType, "error-photo-not-an-image")
        case .unprocessable(let problem): return AppError(.unprocessableContent, imageProblem(problem))
        case .tooLarge(let maximum):
            return self.error(.contentTooLarge, "error-photo-too-large", ["limit": .text(ByteCountText.describe(maximum, in: language))])
        case .overQuota(let quota, let available):
            return self.error(.contentTooLarge, "error-photo-over-quota", [
                "available": .text(ByteCountText.describe(available, in: language)), "quota": .text(ByteCountText.describe(quota, in: language)),
            ])
        case .titleTooLong(let maximum): return self.error(.unprocessableContent, "error-caption-too-long", ["maximum": .text(String(maximum))])
        case .titleHasControlCharacters: return self.error(.unprocessableContent, "error-caption-characters")
        case .notFound: return self.error(.notFound, "error-photo-not-found")
        case .tooManyUploadsInProgress: return self.error(.tooManyRequests, "error-uploads-in-progress", headers: [.retryAfter: "5"])
        case .timedOut: return self.error(.requestTimeout, "error-upload-timed-out")
        case .processingUnavailable: return self.error(.serviceUnavailable, "error-processing-unavailable", headers: [.retryAfter: "5"])
        }
    }

    // MARK: Albums and share links

    func albumError(_ error: AlbumError) -> AppError {
        switch error {
        case .notFound: self.error(.notFound, "error-album-not-found")
        case .titleMissing: self.error(.unprocessableContent, "error-album-name-missing")
        case .titleTooLong(let maximum): self.error(.unprocessableContent, "error-album-name-too-long", ["maximum": .text(String(maximum))])
        case .descriptionTooLong(let maximum): self.error(.unprocessableContent, "error-album-description-too-long", ["maximum": .text(String(maximum))])
        case .controlCharacters: self.error(.unprocessableContent, "error-album-characters")
        case .coverNotInAlbum: self.error(.unprocessableContent, "error-album-cover")
        case .noPhotos: self.error(.unprocessableContent, "error-select-photos")
        case .tooManyPhotos(let maximum): self.error(.unprocessableContent, "error-select-fewer", ["maximum": .text(String(maximum))])
        case .tooManyAlbums(let maximum): self.error(.unprocessableContent, "error-too-many-albums", ["maximum": .text(String(maximum))])
        }
    }

    func shareLinkError(_ error: ShareLinkError) -> AppError {
        switch error {
        case .notFound: self.error(.notFound, "error-link-not-found")
        case .notAmongYours: self.error(.notFound, "error-own-link-not-found")
        case .unknownExpiry: self.error(.unprocessableContent, "error-link-expiry")
        case .targetMissing: self.error(.unprocessableContent, "error-link-target")
        case .password(let problem):
            self.error(.unprocessableContent, "error-link-password-problem", ["problem": .text(message(for: .password, problem))])
        case .passwordRequired: self.error(.unauthorized, "error-link-password-required")
        case .wrongPassword: self.error(.unauthorized, "error-link-wrong-password")
        case .downloadNotAllowed: self.error(.forbidden, "error-link-no-download")
        }
    }

    func imageProblem(_ problem: ImageProblem) -> String {
        switch problem {
        case .unsupportedFormat: words("error-image-format")
        case .unreadable: words("error-image-unreadable")
        case .truncated: words("error-image-truncated")
        case .tooManyPixels(let maximum) where maximum >= 1_000_000: words("error-image-megapixels", ["maximum": .text(String(maximum / 1_000_000))])
        case .tooManyPixels(let maximum): words("error-image-pixels", ["maximum": .text(String(maximum))])
        case .absurdAspectRatio: words("error-image-aspect")
        }
    }

    // MARK: Providers

    func providerRefused(_ refusal: ProviderRefused) -> AppError {
        switch refusal.error {
        case .notConfigured(let provider): self.error(.notFound, "error-provider-not-configured", ["provider": .text(provider)])
        case .providerUnavailable: self.error(.serviceUnavailable, "error-provider-unavailable", ["provider": .text(refusal.providerName)])
        default:
            self.error(.unauthorized, "error-provider-refused", ["provider": .text(refusal.providerName), "reason": .text(refusal.error.reason)])
        }
    }

    func socialAccountError(_ error: SocialAccountError) -> AppError {
        switch error {
        case .alreadyRegistered(let name): self.error(.conflict, "error-social-registered", ["provider": .text(name)])
        case .notRegistered(let name): self.error(.unauthorized, "error-social-not-registered", ["provider": .text(name)])
        case .emailInUse(let email, let name): self.error(.conflict, "error-social-email-in-use", ["email": .text(email), "provider": .text(name)])
        case .linkedToAnotherAccount(let name): self.error(.conflict, "error-social-linked-elsewhere", ["provider": .text(name)])
        case .notLinked: self.error(.notFound, "error-social-not-linked")
        case .lastWayToSignIn: self.error(.conflict, "error-social-last-way-in")
        case .flowExpired: self.error(.badRequest, "error-social-flow-expired")
        }
    }

    // MARK: Admin

    func adminError(_ error: AdminError) -> AppError {
        switch error {
        case .lastAdmin: self.error(.conflict, "error-admin-last-admin")
        case .notAnAdmin: self.error(.forbidden, "error-admins-only")
        case .noSuchUser: self.error(.notFound, "error-admin-no-such-user")
        case .invalidKeyName: self.error(.unprocessableContent, "error-admin-key-name")
        case .keyNameReserved: self.error(.conflict, "error-admin-key-reserved")
        case .keyNameTaken: self.error(.conflict, "error-admin-key-taken")
        case .invalidQuota: self.error(.unprocessableContent, "error-admin-quota")
        case .noSuchKey: self.error(.notFound, "error-admin-no-such-key")
        case .unconfirmedAddress: self.error(.conflict, "error-admin-unconfirmed-address")
        }
    }
}

extension HTTPResponse.Status {
    static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
}
