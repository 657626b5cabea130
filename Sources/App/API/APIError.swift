import HTTPTypes

/// The API's refusals, in the `{"status", "message"}` shape every `/api` error has.
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

    static func missingField(_ name: String) -> AppError {
        AppError(.badRequest, "Missing field: \(name)")
    }

    static func wrongType(_ name: String) -> AppError {
        AppError(.badRequest, "The field \(name) must be a string.")
    }
}
