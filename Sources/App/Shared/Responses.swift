import Foundation
import Hummingbird
import SelfieCore

/// A rendered HTML page as a response.
struct HTML: ResponseGenerator {
    /// The page's UTF-8, as the renderer wrote it.
    let body: [UInt8]
    var status: HTTPResponse.Status = .ok

    func response(from request: Request, context: some RequestContext) -> Response {
        let buffer = ByteBuffer(bytes: body)
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentLength] = String(buffer.readableBytes)
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: buffer))
    }
}

extension Response {
    /// 303 See Other: the answer to a form POST, so a reload does not post again.
    static func seeOther(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .contentLength: "0"])
    }
}

extension Response {
    /// A file to save, made for this request and written as it is produced: no length in advance
    /// (chunked), not cached. `make` runs for a GET only: a HEAD (`curl -I`, a link checker) gets
    /// the same headers without the work, the rate limit it counts against or the audit entry.
    static func download(
        for request: Request,
        filename: String,
        contentType: String,
        make: () async throws -> BlobBody
    ) async throws -> Response {
        var response = Response(
            status: .ok,
            headers: [
                .contentType: contentType,
                .contentDisposition: "attachment; filename=\"\(filename)\"",
                .cacheControl: "private, no-store",
            ]
        )
        guard request.method != .head else { return response }
        let body = try await make()
        response.body = ResponseBody { writer in
            try await body.write { try await writer.write($0) }
            try await writer.finish(nil)
        }
        return response
    }
}

extension ResponseBody {
    /// A blob's bytes as a response body, read as the response is written.
    init(_ blob: BlobBody, contentLength: Int) {
        self.init(contentLength: contentLength) { writer in
            try await blob.write { try await writer.write($0) }
            try await writer.finish(nil)
        }
    }
}

