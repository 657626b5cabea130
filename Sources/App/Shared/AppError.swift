import HTTPTypes
import Hummingbird

/// An error as a surface answers it: a status and a message written for the person (or app) that
/// made the request. Domain errors become one of these in `DomainErrorCopy`; surfaces also throw
/// their own (a CSRF refusal, a missing app key). Only these messages (and Hummingbird's own
/// `HTTPError` messages) ever reach a client; anything else is logged and answered with a
/// generic message for its status.
struct AppError: Error, Sendable {
    let status: HTTPResponse.Status
    let message: String
    /// Headers the response needs (`WWW-Authenticate` on a 401, `Retry-After` on a 429).
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    static func notFound(_ message: String) -> AppError {
        AppError(.notFound, message)
    }

    static let csrfRejected = Refusal(.forbidden, "error-csrf")
}

/// A page's own refusal, named by its message in `Locales/<language>/errors.ftl`: answered in the
/// viewer's language by the web's error path (`ErrorCopy.appError(for:)`), in English elsewhere.
struct Refusal: Error, Sendable {
    let status: HTTPResponse.Status
    let key: String
    let arguments: [String: MessageArgument]

    init(_ status: HTTPResponse.Status, _ key: String, _ arguments: [String: MessageArgument] = [:]) {
        self.status = status
        self.key = key
        self.arguments = arguments
    }
}
