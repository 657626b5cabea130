import Foundation
import HTTPTypes
import Hummingbird
import SelfieCore

/// tus 1.0.0 resumable uploads at `/api/uploads` (core protocol, creation, creation-with-upload,
/// termination, expiration, checksum with sha1 and sha256), with the app's API token or the
/// browser's session and CSRF token. The PATCH
/// that brings the last byte answers once the photo exists: its `random_id` is in `Upload-Photo-Id`.
extension APIController {
    var uploadRoutes: [Route] {
        [
            Route(method: .options, path: "/api/uploads", handler: .open(tusOptions)),
            Route(method: .post, path: "/api/uploads", handler: .uploader(createUpload), rateLimit: .upload),
            Route(method: .head, path: "/api/uploads/:id", handler: .uploader(uploadStatus)),
            Route(method: .patch, path: "/api/uploads/:id", handler: .uploader(appendToUpload)),
            Route(method: .delete, path: "/api/uploads/:id", handler: .uploader(terminateUpload)),
        ]
    }

    enum Tus {
        static let version = "1.0.0"
        static let resumable = HTTPField.Name("Tus-Resumable")!
        static let versionHeader = HTTPField.Name("Tus-Version")!
        static let extensions = HTTPField.Name("Tus-Extension")!
        static let maxSize = HTTPField.Name("Tus-Max-Size")!
        static let checksumAlgorithms = HTTPField.Name("Tus-Checksum-Algorithm")!
        static let uploadLength = HTTPField.Name("Upload-Length")!
        static let uploadOffset = HTTPField.Name("Upload-Offset")!
        static let uploadMetadata = HTTPField.Name("Upload-Metadata")!
        static let uploadExpires = HTTPField.Name("Upload-Expires")!
        static let uploadChecksum = HTTPField.Name("Upload-Checksum")!
        static let uploadDeferLength = HTTPField.Name("Upload-Defer-Length")!
        static let photoID = HTTPField.Name("Upload-Photo-Id")!
        static let offsetOctetStream = "application/offset+octet-stream"
    }

    /// Discovery: what this server speaks.
    func tusOptions(_ request: Request, context: APIRequestContext) async throws -> Response {
        var headers: HTTPFields = [
            Tus.resumable: Tus.version, Tus.versionHeader: Tus.version,
            Tus.extensions: "creation,creation-with-upload,termination,expiration,checksum",
            Tus.checksumAlgorithms: "sha1,sha256",
        ]
        headers[Tus.maxSize] = String(resumable.maxBytes)
        return Response(status: .noContent, headers: headers)
    }

    /// `POST`: a new upload of `Upload-Length` bytes; with a body (`creation-with-upload`), its first bytes.
    func createUpload(_ request: Request, context: UploaderContext) async throws -> Response {
        try requireTusVersion(request)
        if request.headers[Tus.uploadDeferLength] != nil {
            throw tusError(.badRequest, "Upload-Defer-Length is not supported: send Upload-Length.")
        }
        guard let text = request.headers[Tus.uploadLength], let length = Int64(text), length > 0 else {
            throw tusError(.badRequest, "Send Upload-Length: the file's size in bytes.")
        }
        let metadata: UploadMetadata
        do {
            metadata = try UploadMetadata(header: request.headers[Tus.uploadMetadata])
        } catch {
            throw tusError(.badRequest, "Upload-Metadata must be comma-separated pairs of a key and its base64 value.")
        }
        let upload = try await mapped { try await resumable.create(for: context.user, length: length, metadata: metadata) }
        var headers = tusHeaders(for: upload)
        headers[.location] = "\(publicURL)/api/uploads/\(upload.publicID)"
        if request.headers[.contentType] == Tus.offsetOctetStream {
            do {
                try await append(request, to: upload, at: 0, context: context, answering: &headers)
            } catch {
                // The refusal goes out without the upload's address, so the client starts again with
                // a new POST: the upload it could never resume must not count against its limit.
                await resumable.abandon(upload)
                throw error
            }
        }
        return Response(status: .created, headers: headers)
    }

    /// `HEAD`: where the upload stands.
    func uploadStatus(_ request: Request, context: UploaderContext) async throws -> Response {
        try requireTusVersion(request)
        let upload = try await mapped { try await resumable.upload(try context.parameters.require("id"), of: context.user) }
        var headers = tusHeaders(for: upload)
        headers[Tus.uploadOffset] = String(upload.storedOffset)
        headers[Tus.uploadLength] = String(upload.length)
        if !upload.metadata.header.isEmpty { headers[Tus.uploadMetadata] = upload.metadata.header }
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers)
    }

    /// `PATCH`: bytes at `Upload-Offset`.
    func appendToUpload(_ request: Request, context: UploaderContext) async throws -> Response {
        try requireTusVersion(request)
        guard request.headers[.contentType] == Tus.offsetOctetStream else {
            throw tusError(.unsupportedMediaType, "Send the bytes as \(Tus.offsetOctetStream).")
        }
        guard let text = request.headers[Tus.uploadOffset], let offset = Int64(text), offset >= 0 else {
            throw tusError(.badRequest, "Send Upload-Offset: where these bytes start.")
        }
        let upload = try await mapped { try await resumable.upload(try context.parameters.require("id"), of: context.user) }
        var headers = tusHeaders(for: upload)
        try await append(request, to: upload, at: offset, context: context, answering: &headers)
        return Response(status: .noContent, headers: headers)
    }

    /// `DELETE`: the upload ends; its bytes go.
    func terminateUpload(_ request: Request, context: UploaderContext) async throws -> Response {
        try requireTusVersion(request)
        try await mapped {
            let upload = try await resumable.upload(try context.parameters.require("id"), of: context.user)
            try await resumable.terminate(upload)
        }
        return Response(status: .noContent, headers: [Tus.resumable: Tus.version])
    }

    // MARK: Helpers

    /// The request's body at `offset`; the new offset (and the photo, after the last byte) in `headers`.
    private func append(
        _ request: Request, to upload: ResumableUpload, at offset: Int64, context: UploaderContext, answering headers: inout HTTPFields
    ) async throws {
        let outcome = try await mapped {
            try await resumable.append(request.body, to: upload, at: offset, checksum: try checksum(of: request), for: context.user, origin: context.origin)
        }
        headers[Tus.uploadOffset] = String(outcome.offset)
        if let photo = outcome.photo { headers[Tus.photoID] = photo.publicID }
    }

    private var publicURL: String {
        let text = resumablePublicURL.absoluteString
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    private func tusHeaders(for upload: ResumableUpload) -> HTTPFields {
        var headers: HTTPFields = [Tus.resumable: Tus.version]
        headers[Tus.uploadExpires] = HTTPDate.format(upload.expiresAt)
        if let photo = upload.photoPublicID { headers[Tus.photoID] = photo }
        return headers
    }

    private func requireTusVersion(_ request: Request) throws {
        guard request.headers[Tus.resumable] == Tus.version else {
            throw AppError(.preconditionFailed, "Send Tus-Resumable: \(Tus.version).", headers: [Tus.versionHeader: Tus.version, Tus.resumable: Tus.version])
        }
    }

    /// `Upload-Checksum: <algorithm> <base64 digest>`, if sent.
    private func checksum(of request: Request) throws -> (algorithm: String, digest: [UInt8])? {
        guard let text = request.headers[Tus.uploadChecksum] else { return nil }
        let parts = text.split(separator: " ")
        guard parts.count == 2, let digest = Data(base64Encoded: String(parts[1])) else {
            throw tusError(.badRequest, "Upload-Checksum must be an algorithm and a base64 digest.")
        }
        return (String(parts[0]), Array(digest))
    }

    private func tusError(_ status: HTTPResponse.Status, _ message: String) -> AppError {
        AppError(status, message, headers: [Tus.resumable: Tus.version])
    }

    /// Runs `body`, answering its refusals with tus's statuses.
    private func mapped<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ResumableUploadError {
            throw switch error {
            case .notFound: tusError(.notFound, "There is no such upload.")
            case .expired: tusError(.gone, "This upload expired; start it again.")
            case .offsetMismatch(let current): tusError(.conflict, "Upload-Offset does not match: the upload stands at \(current) bytes.")
            case .busy: tusError(HTTPResponse.Status(code: 423, reasonPhrase: "Locked"), "Another request is adding to this upload; try again shortly.")
            case .tooLarge(let maximum): tusError(.contentTooLarge, "This file is too large: the limit is \(maximum) bytes.")
            case .pastLength: tusError(.badRequest, "The bytes go past Upload-Length.")
            case .tooManyInFlight(let uploads, _):
                tusError(.tooManyRequests, "Too many unfinished uploads (at most \(uploads)): finish or delete one first.")
            case .unsupportedChecksum(let name): tusError(.badRequest, "Checksum algorithm \(name) is not supported: use sha1 or sha256.")
            case .checksumMismatch: tusError(HTTPResponse.Status(code: 460, reasonPhrase: "Checksum Mismatch"), "The checksum does not match the bytes sent; they were not kept.")
            case .metadata: tusError(.badRequest, "Upload-Metadata could not be read.")
            case .noSuchAlbum: tusError(.badRequest, "album_id names no album of yours.")
            }
        }
    }
}

/// Dates in HTTP headers (RFC 9110 IMF-fixdate): `Sun, 06 Nov 1994 08:49:37 GMT`.
enum HTTPDate {
    static func format(_ date: Date) -> String {
        date.formatted(
            Date.VerbatimFormatStyle(
                format: "\(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .defaultDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) GMT",
                locale: Locale(identifier: "en_US_POSIX"),
                timeZone: TimeZone(identifier: "GMT")!,
                calendar: Calendar(identifier: .gregorian)
            )
        )
    }
}
