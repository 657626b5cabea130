import Foundation
import NIOCore

/// S3's multipart upload, one call each: what `S3BlobWriter` does within one upload and what
/// resumable uploads do across many requests.
extension S3Client {
    func createMultipartUpload(objectKey: String, contentType: String) async throws -> String {
        let response = try await send(
            .POST,
            objectKey: objectKey,
            query: [("uploads", "")],
            headers: [("Content-Type", contentType), ("Cache-Control", S3BlobStore.cacheControl)]
        )
        guard response.status == .ok, let id = XMLText.values(of: "UploadId", in: String(buffer: response.body)).first else {
            throw failure(response, "CreateMultipartUpload")
        }
        return id
    }

    /// Sends part `number` (sending a number again replaces that part); its ETag.
    func uploadPart(objectKey: String, uploadID: String, number: Int, body: Payload) async throws -> String {
        let response = try await send(.PUT, objectKey: objectKey, query: [("partNumber", String(number)), ("uploadId", uploadID)], payload: body)
        guard response.status == .ok, let etag = response.headers.first(name: "ETag") else { throw failure(response, "UploadPart") }
        return etag
    }

    func completeMultipartUpload(objectKey: String, uploadID: String, parts: [(number: Int, etag: String)]) async throws {
        let xml =
            "<CompleteMultipartUpload>"
            + parts.map { "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(XMLText.escape($0.etag))</ETag></Part>" }.joined()
            + "</CompleteMultipartUpload>"
        let response = try await send(
            .POST, objectKey: objectKey, query: [("uploadId", uploadID)], headers: [("Content-Type", "application/xml")], body: ByteBuffer(string: xml)
        )
        // S3 can answer 200 and still report an error in the body.
        guard response.status == .ok, !String(buffer: response.body).contains("<Error>") else {
            throw failure(response, "CompleteMultipartUpload")
        }
    }

    func abortMultipartUpload(objectKey: String, uploadID: String) async throws {
        _ = try await send(.DELETE, objectKey: objectKey, query: [("uploadId", uploadID)])
    }

    func putObject(objectKey: String, contentType: String, body: Payload) async throws {
        let response = try await send(
            .PUT, objectKey: objectKey, headers: [("Content-Type", contentType), ("Cache-Control", S3BlobStore.cacheControl)], payload: body
        )
        guard response.status == .ok else { throw failure(response, "PutObject") }
    }
}

/// One page of ListMultipartUploads: S3 answers 1,000 uploads at most, and names where the next
/// page starts while `IsTruncated` says there is one.
struct MultipartUploadListing: Sendable {
    struct Upload: Sendable {
        let key: String
        let id: String
        let initiated: Date?
    }

    /// `key-marker` and `upload-id-marker` for the next page.
    struct Next: Sendable, Equatable {
        let keyMarker: String
        let uploadIDMarker: String
    }

    let uploads: [Upload]
    /// Nil on the last page.
    let next: Next?

    init(xml: String) {
        uploads = XMLText.elements("Upload", in: xml).compactMap { upload in
            guard let key = XMLText.values(of: "Key", in: upload).first, let id = XMLText.values(of: "UploadId", in: upload).first else {
                return nil
            }
            return Upload(key: key, id: id, initiated: XMLText.values(of: "Initiated", in: upload).first.flatMap(S3BlobStore.parseDate))
        }
        let truncated = XMLText.values(of: "IsTruncated", in: xml).first == "true"
        if truncated, let key = XMLText.values(of: "NextKeyMarker", in: xml).first {
            next = Next(keyMarker: key, uploadIDMarker: XMLText.values(of: "NextUploadIdMarker", in: xml).first ?? "")
        } else {
            next = nil
        }
    }
}
