import Foundation
import HTTPTypes
import Hummingbird
import SelfieCore

/// The API's own refusals, in the `{"status", "message"}` shape every `/api` error has.
enum APIError {
    static let appKeyRequired = AppError(
        .unauthorized,
        "This app is not allowed to use the API: check the app key.",
        headers: [.wwwAuthenticate: #"Basic realm="Selfie API""#]
    )
    static let tokenRequired = AppError(
        .unauthorized,
        "Your session has ended. Please sign in again.",
        headers: [.wwwAuthenticate: #"Token realm="Selfie API""#]
    )
    static let invalidCredentials = AppError(.unauthorized, "Invalid email or password.")
    static let undecryptablePassword = AppError(
        .badRequest,
        "The password could not be decrypted. It must be AESCrypt-encrypted with the app key's password."
    )
    static let invalidJSON = AppError(.badRequest, "The request body must be a JSON object.")
    static let photoNotFound = AppError(.notFound, "Photo not found")
    /// What the railsauth backend answered for any URL or method it did not serve.
    static let wrongURL = AppError(.notFound, "Wrong URL or HTTP method")

    static func missingField(_ name: String) -> AppError {
        AppError(.badRequest, "Missing field: \(name)")
    }

    static func wrongType(_ name: String) -> AppError {
        AppError(.badRequest, "The field \(name) must be a string.")
    }

    /// The API's words for the core's errors, where they differ from the pages': the messages the
    /// iOS app shows, and a taken email or username as a 409.
    static func appError(for error: any Error, copy: ErrorCopy) -> AppError {
        switch error {
        case let error as InvalidFields: fieldsError(error, copy: copy)
        case AccountError.invalidCredentials: invalidCredentials
        case PhotoError.notFound: photoNotFound
        case SecondFactorError.codeRequired:
            AppError(.unauthorized, "This account uses two-step verification: send the 6-digit code from the authenticator app, or a recovery code, as otp.")
        case SecondFactorError.incorrectCode:
            AppError(.unauthorized, "The code is not correct, or it was already used. Send the current code from the authenticator app, or an unused recovery code.")
        default: copy.appError(for: error)
        }
    }

    /// Validation refusals: a taken email or username is a 409, a wrong current password a 401,
    /// anything else a 422 naming each field as the app's JSON does.
    static func fieldsError(_ error: InvalidFields, copy: ErrorCopy) -> AppError {
        if error[.currentPassword] == .incorrect { return AppError(.unauthorized, "The old password is not correct.") }
        if error[.email] == .taken { return AppError(.conflict, "An account with this email already exists.") }
        if error[.username] == .taken { return AppError(.conflict, "This username is taken.") }
        return AppError(.unprocessableContent, copy.sentence(for: error, name: jsonName))
    }

    /// A refusal that a code in `otp` would fix: its body says `"otp_required": true`.
    static func asksForCode(_ error: any Error) -> Bool {
        error as? SecondFactorError == .codeRequired || error as? SecondFactorError == .incorrectCode
    }

    static func jsonName(_ field: Field) -> String {
        switch field {
        case .fullName: "full_name"
        case .newPassword: "new_password"
        default: field.rawValue
        }
    }
}

/// The API's error path: every error under `/api` becomes `{"status": <HTTP status>, "message":
/// "…"}` — the iOS app force-casts error bodies to a dictionary and reads `message`.
struct APIErrorMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let translations: Translations
    private let english: ErrorCopy

    init(translations: Translations) {
        self.translations = translations
        self.english = ErrorCopy(words: Words(translations: translations, viewer: .default))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            let answer = APIError.appError(for: error, copy: copy(for: request))
            ErrorLogging.record(error, answer: answer, request: request, logger: context.logger)
            var response = APIErrorBody(status: answer.status, message: answer.message, otpRequired: APIError.asksForCode(error)).response()
            response.headers.append(contentsOf: answer.headers)
            return response
        }
    }

    /// English for the apps (the seed's shows the messages as they are); the page's language for
    /// a browser's upload (`tus.js` sends its session's CSRF token, and the page's language as
    /// `Accept-Language`), whose script shows the message on the page.
    func copy(for request: Request) -> ErrorCopy {
        guard request.headers[.authorization] == nil, request.headers[.csrfToken] != nil,
            let language = request.headers[.acceptLanguage].flatMap(Language.preferred(byAcceptLanguage:)), language != .english
        else { return english }
        return ErrorCopy(words: Words(translations: translations, viewer: Viewer(language: language, timeZone: nil, theme: .system)))
    }
}

/// The API's error shape: `{"status": <HTTP status>, "message": "…"}`, plus
/// `"otp_required": true` when the account's second-factor code is missing or wrong.
struct APIErrorBody: Encodable {
    let status: Int
    let message: String
    let otpRequired: Bool?

    enum CodingKeys: String, CodingKey {
        case status, message
        case otpRequired = "otp_required"
    }

    init(status: HTTPResponse.Status, message: String, otpRequired: Bool = false) {
        self.status = status.code
        self.message = message
        self.otpRequired = otpRequired ? true : nil
    }

    func response() -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(self)) ?? Data(#"{"message":"Error","status":500}"#.utf8)
        let headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .contentLength: String(data.count)]
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
