import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting

/// Test images: real, decodable 32×24 pictures padded to about `size` bytes with seeded noise
/// that decoders skip (JPEG comment segments, a private PNG chunk), so that every size and every
/// seed makes a different file that still turns into renditions.
enum TestImage {
    static let tinyJPEG = [UInt8](Data(base64Encoded: "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/2wBDAQkJCQwLDBgNDRgyIRwhMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjL/wAARCAAYACADASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAAAAEF/8QAFRABAQAAAAAAAAAAAAAAAAAAABH/xAAXAQEBAQEAAAAAAAAAAAAAAAAABQYH/8QAHhEBAAAFBQAAAAAAAAAAAAAAAAECBKHRBRUWUlP/2gAMAwEAAhEDEQA/AMUSlXd5oe9o4TOOan5XlygDCOpgAAAP/9k=")!)
    static let tinyPNG = [UInt8](Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAACAAAAAYCAYAAACbU/80AAAAO0lEQVR42mOUqzjRwEABWHUkoZ4S/UwMAwxGHTDqgFEHjDpg1AGMJ2w0/o9GwagDRh0w6oBRB4xoBwAADHAGhdvWkcAAAAAASUVORK5CYII=")!)

    static func jpeg(size: Int = 2048, seed: UInt64 = 1) -> [UInt8] {
        var padding: [UInt8] = []
        var remaining = max(size - tinyJPEG.count, 0)
        var segment: UInt64 = 0
        while remaining > 0 {
            let payload = min(remaining, 65533)
            padding += [0xFF, 0xFE, UInt8((payload + 2) >> 8), UInt8((payload + 2) & 0xFF)]
            padding += noise(payload, seed: seed &+ segment)
            remaining -= payload + 4
            segment += 1
        }
        return Array(tinyJPEG.prefix(2)) + padding + Array(tinyJPEG.dropFirst(2))  // after SOI
    }

    static func png(size: Int = 2048, seed: UInt64 = 2) -> [UInt8] {
        let payload = noise(max(size - tinyPNG.count - 12, 0), seed: seed)
        let kind = Array("prVt".utf8)  // ancillary, private: decoders skip it
        var chunk = bigEndian(UInt32(payload.count)) + kind + payload
        chunk += bigEndian(CRC32.checksum(kind + payload))
        let headerEnd = 8 + 25  // signature, IHDR
        return Array(tinyPNG.prefix(headerEnd)) + chunk + Array(tinyPNG.dropFirst(headerEnd))
    }

    static func text(_ text: String = "just some text, saved as photo.png\n") -> [UInt8] { Array(text.utf8) }

    static func noise(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}

/// CRC-32 (ISO-HDLC, as PNG chunks use it).
enum CRC32 {
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
}

/// Multipart bodies as clients build them.
enum MultipartBody {
    /// Exactly the bytes the railsauth iOS app sends (HTTPHelper.uploadRequest): an `attachment` part
    /// named `image` with filename `photo`, then the `title` part.
    static let iOSBoundary = "---------------------------14737809831466499882746641449"

    static func iOS(image: [UInt8], title: String) -> (contentType: String, body: ByteBuffer) {
        var body = ByteBuffer()
        body.writeString("--\(iOSBoundary)\r\n")
        body.writeString("Content-Disposition: attachment; name=\"image\"; filename=\"photo\"\r\n")
        body.writeString("Content-Type: application/octet-stream\r\n\r\n")
        body.writeBytes(image)
        body.writeString("\r\n")
        body.writeString("--\(iOSBoundary)\r\n")
        body.writeString("Content-Disposition: form-data; name=\"title\"\r\n\r\n")
        body.writeString(title)
        body.writeString("\r\n")
        body.writeString("--\(iOSBoundary)--\r\n")
        return ("multipart/form-data; boundary=\(iOSBoundary)", body)
    }

    /// A browser's `form-data` upload (title first, as the upload form orders its fields).
    static func browser(image: [UInt8]?, title: String, filename: String = "selfie.jpg", fileType: String = "image/jpeg")
        -> (contentType: String, body: ByteBuffer)
    {
        let boundary = "----WebKitFormBoundary\(UUID().uuidString.prefix(16))"
        var body = ByteBuffer()
        body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n\(title)\r\n")
        if let image {
            body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"\(filename)\"\r\n")
            body.writeString("Content-Type: \(fileType)\r\n\r\n")
            body.writeBytes(image)
            body.writeString("\r\n")
        }
        body.writeString("--\(boundary)--\r\n")
        return ("multipart/form-data; boundary=\(boundary)", body)
    }
}

extension Browser {
    /// Uploads through the browser form (CSRF token in the form's action, as the page has it).
    @discardableResult
    func upload(image: [UInt8]?, title: String = "", filename: String = "selfie.jpg") async throws -> TestResponse {
        let token = try await csrfToken(on: "/photos/new")
        let (contentType, body) = MultipartBody.browser(image: image, title: title, filename: filename)
        return try await send("/photos?_csrf=\(token)", method: .post, body: body, contentType: contentType)
    }

    /// The gallery's photos as (public id, image URL, caption), newest first.
    func galleryPhotos(_ path: String = "/gallery") async throws -> [(id: String, imageURL: String, title: String)] {
        let html = try await get(path).text
        let pattern = #"<a href="/photos/([^"]+)">\s*<img src="([^"]+)"[^>]*>\s*<span class="caption">([^<]*)</span>"#
        let regex = try NSRegularExpression(pattern: pattern)
        return regex.matches(in: html, range: NSRange(html.startIndex..., in: html)).map { match in
            let group = { (i: Int) in String(html[Range(match.range(at: i), in: html)!]) }
            return (group(1), group(2).replacingOccurrences(of: "&amp;", with: "&"), group(3))
        }
    }
}

extension TestApp {
    /// GETs an image URL the way a browser would: no cookies, no headers (our own server's /media).
    func fetchImage(_ url: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        guard let components = URLComponents(string: url) else { throw TestSetupError("bad URL \(url)") }
        let path = components.percentEncodedPath + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
        return try await client.execute(uri: path, method: .get, headers: headers)
    }

    /// Files in the test's filesystem store (temporary upload files included).
    func filesInBlobStore() -> [String] {
        guard case .filesystem(let directory) = config.blobStore,
            let walker = FileManager.default.enumerator(atPath: directory)
        else { return [] }
        var files: [String] = []
        while let path = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(directory)/\(path)", isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(path)
            }
        }
        return files
    }

    func photoCount() async throws -> Int {
        try await scalar("SELECT count(*)::int FROM photos")
    }
}

/// Runs `body` in a task that has already been cancelled, as a request's is when the server cuts
/// it off at shutdown or its client goes away.
func inCancelledTask(_ body: @escaping @Sendable () async -> Void) async {
    let task = Task {
        while !Task.isCancelled { await Task.yield() }
        await body()
    }
    task.cancel()
    await task.value
}

/// Hands a blob writer (a class the store owns, used by one task at a time) to the task above.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
