import Foundation
import Hummingbird

/// The string fields of an API request: its JSON object body, plus (for GETs, where clients may
/// put them there instead) its query parameters. Small bodies only.
struct APIRequestFields {
    static let maximumBodyBytes = 16 * 1024
    private let values: [String: Any]

    /// `acceptingForms`: an `application/x-www-form-urlencoded` body is read as well as JSON
    /// (the register/login API's clients post forms).
    static func read(_ request: Request, includingQuery: Bool = false, acceptingForms: Bool = false) async throws -> APIRequestFields {
        let body = try await collectBody(of: request)
        var values: [String: Any] = [:]
        if includingQuery {
            for (name, value) in request.uri.queryParameters { values[String(name)] = String(value) }
        }
        let text = String(buffer: body).trimmingCharacters(in: .whitespacesAndNewlines)
        if acceptingForms, request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
            for (name, value) in URLEncodedForm.pairs(in: text) where values[name] == nil { values[name] = value }
        } else if !text.isEmpty {
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                throw APIError.invalidJSON
            }
            values.merge(object) { _, json in json }
        }
        return APIRequestFields(values: values)
    }

    /// The request's body, up to `maximumBodyBytes` (a 413 that says so beyond).
    static func collectBody(of request: Request) async throws -> ByteBuffer {
        var request = request
        do {
            return try await request.collectBody(upTo: maximumBodyBytes)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw AppError(.contentTooLarge, "The request body is too large (at most \(maximumBodyBytes / 1024) KB).")
        }
    }

    /// A field that must be present as a non-empty string.
    func require(_ name: String) throws -> String {
        guard let value = values[name], !(value is NSNull) else { throw APIError.missingField(name) }
        guard let text = value as? String else { throw APIError.wrongType(name) }
        guard !text.isEmpty else { throw APIError.missingField(name) }
        return text
    }

    func contains(_ name: String) -> Bool { values[name] != nil }

    /// A field that may be absent or empty (nil then); present, it must be a string.
    func optional(_ name: String) throws -> String? {
        guard let value = values[name], !(value is NSNull) else { return nil }
        guard let text = value as? String else { throw APIError.wrongType(name) }
        return text.isEmpty ? nil : text
    }
}

/// An Encodable value as a JSON response with a status.
struct JSONResponse<Body: Encodable & Sendable>: ResponseGenerator {
    var status: HTTPResponse.Status = .ok
    let body: Body

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Response.json(body: ByteBuffer(bytes: try encoder.encode(body)), status: status)
    }
}
