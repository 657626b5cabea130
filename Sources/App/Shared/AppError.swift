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

    static func notFound(_ message: String = "There is nothing at this address.") -> AppError {
        AppError(.notFound, message)
    }

    static let csrfRejected = AppError(
        .forbidden,
        "This form has expired or did not come from Selfie. Go back, reload the page and try again."
    )
}
