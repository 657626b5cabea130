import Foundation
import Hummingbird
import Logging
import PostgresNIO

/// Catches whatever the rest of the chain throws and answers it through `ErrorResponder`.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let errors: ErrorResponder

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            return errors.response(for: error, request: request, context: context)
        }
    }
}

/// The one error path. Handlers throw; this turns any error into a response with the right status:
/// an HTML page for browsers, `{"status": …, "message": …}` under `/api`. Only messages written for
/// clients (`AppError`, `HTTPError`) are shown; anything else is logged with the request id and
/// answered with a generic message, so no stack trace or SQL ever leaves the server.
struct ErrorResponder: Sendable {
    let pages: PageRenderer

    func response(for error: any Error, request: Request, context: some RequestContext) -> Response {
        if error is SignInRequired, !request.uri.path.isAPIPath {
            return .seeOther("/signin?next=\(Self.returnPath(for: request))")
        }
        var (status, message) = Self.classify(error)
        if DatabaseAvailability.isUnavailable(error) { AppMetrics.databaseUnavailable() }
        if status.code >= 500 {
            context.logger.error(
                "request failed",
                metadata: ["path": "\(request.uri.path)", "error": "\(String(reflecting: error))"]
            )
        }
        var response: Response
        if request.uri.path.isAPIPath {
            // The router's own "no such route" (and wrong method) answers as the seed's API did.
            if let error = error as? HTTPError, error.status == .notFound || error.status == .methodNotAllowed {
                (status, message) = (.notFound, "Wrong URL or HTTP method")
            }
            response = APIErrorBody(status: status, message: message).response()
        } else {
            let user = (context as? any PageContext)?.signedInUser
            response = pages.renderError(status: status, message: message, user: user).response(from: request, context: context)
        }
        if let error = error as? AppError {
            for field in error.headers { response.headers.append(field) }
        }
        return response
    }

    /// The status and the client-safe message for an error.
    static func classify(_ error: any Error) -> (HTTPResponse.Status, String) {
        switch error {
        case let error as AppError:
            return (error.status, error.message)
        case is SignInRequired:
            return (.unauthorized, "Sign in first.")
        case let error as HTTPError:
            return (error.status, error.body ?? genericMessage(for: error.status))
        case let error as any HTTPResponseError:
            // e.g. NIOTooManyBytesError from collecting a body over its limit (413)
            return (error.status, genericMessage(for: error.status))
        case BlobStoreError.unavailable:
            return (.serviceUnavailable, "Photo storage is unavailable right now. Please try again shortly.")
        case BlobStoreError.insufficientStorage:
            return (HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), "Photo storage is full right now. Please try again later.")
        case let error where DatabaseAvailability.isUnavailable(error):
            return (.serviceUnavailable, genericMessage(for: .serviceUnavailable))
        case let error as PSQLError where error.isRejectedValue:
            // A value our validation let through but the database refused: the input's fault.
            return (.badRequest, genericMessage(for: .badRequest))
        case is DecodingError:
            return (.badRequest, genericMessage(for: .badRequest))
        default:
            return (.internalServerError, genericMessage(for: .internalServerError))
        }
    }

    static func genericMessage(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: "The request could not be understood."
        case 401: "Sign in first."
        case 403: "You do not have access to this."
        case 404: "There is nothing at this address."
        case 405: "This address does not accept that kind of request."
        case 413: "That is too large."
        case 415: "That kind of file is not accepted."
        case 429: "Too many attempts. Wait a little and try again."
        case 503: "Selfie is unavailable for a moment. Please try again shortly."
        case 500...: "Something went wrong on our side. Please try again."
        default: status.reasonPhrase
        }
    }

    /// Where to come back to after signing in, percent-encoded: this page for a GET, else the home page.
    static func returnPath(for request: Request) -> String {
        guard request.method == .get else { return "%2F" }
        let path = request.uri.query.map { "\(request.uri.path)?\($0)" } ?? request.uri.path
        return PercentEncoding.encode(path)
    }
}

/// The API's error shape: `{"status": <HTTP status>, "message": "…"}` (the iOS app reads `message`).
struct APIErrorBody: Encodable {
    let status: Int
    let message: String

    init(status: HTTPResponse.Status, message: String) {
        self.status = status.code
        self.message = message
    }

    func response() -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(self)) ?? Data(#"{"message":"Error","status":500}"#.utf8)
        let headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .contentLength: String(data.count)]
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
