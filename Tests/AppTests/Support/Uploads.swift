import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting

/// Test images: the right magic bytes for libmagic, then `size` bytes of seeded noise.
enum TestImage {
    static func jpeg(size: Int = 2048, seed: UInt64 = 1) -> [UInt8] {
        let header: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
        return header + noise(size, seed: seed) + [0xFF, 0xD9]
    }

    static func png(size: Int = 2048, seed: UInt64 = 2) -> [UInt8] {
        let header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52,
            0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89]
        return header + noise(size, seed: seed)
    }

    static func text(_ text: String = "just some text, saved as photo.png\n") -> [UInt8] { Array(text.utf8) }

    static func noise(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
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
        let pattern = #"<a href="/photos/([^"]+)">\s*<img src="([^"]+)" alt="[^"]*" loading="lazy">\s*<span class="caption">([^<]*)</span>"#
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
