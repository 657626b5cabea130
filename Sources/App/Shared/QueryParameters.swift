import Hummingbird
import SelfieCore

extension Request {
    /// The query parameter `name` as a whole number within `range`, or nil when it is absent.
    /// Anything else — not a number, too large for any integer, outside the range — is a 400
    /// that says what is expected: a number from a URL never reaches arithmetic unchecked.
    func queryInteger<Number: FixedWidthInteger & Sendable>(_ name: String, in range: ClosedRange<Number>) throws -> Number? {
        guard let raw = uri.queryParameters[name[...]] else { return nil }
        guard let value = Number(raw), range.contains(value) else {
            throw Refusal(
                .badRequest, "error-query-number",
                ["name": .text(name), "minimum": .text(String(range.lowerBound)), "maximum": .text(String(range.upperBound))]
            )
        }
        return value
    }
}

extension Request {
    /// A grid's "older photos" cursor (`after=<microseconds>_<id>`); nil without one, a 400 for
    /// anything else.
    func queryPosition(_ name: String) throws -> PhotoPosition? {
        guard let raw = uri.queryParameters[name[...]] else { return nil }
        guard let position = PhotoPosition(text: String(raw)) else {
            throw Refusal(.badRequest, "error-query-position", ["name": .text(name)])
        }
        return position
    }
}

extension PhotoService {
    /// Stores the photo a request uploads (the same for the upload form and the API).
    func upload(for user: User, request: Request, origin: RequestOrigin) async throws -> Photo {
        try await upload(
            for: user,
            body: request.body,
            contentType: request.headers[.contentType],
            contentLength: request.headers[.contentLength].flatMap { Int($0) },
            origin: origin
        )
    }
}
