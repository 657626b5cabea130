import HTTPTypes
import Hummingbird

/// An error whose message is written for the person who made the request. Only these messages
/// (and Hummingbird's own `HTTPError` messages) ever reach a client; everything else is logged
/// and answered with a generic message for its status.
public struct AppError: Error, Sendable {
    public let status: HTTPResponse.Status
    public let message: String
    /// Headers the response needs (e.g. `WWW-Authenticate` on a 401).
    public var headers: HTTPFields = [:]

    public init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
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
