@testable import App
@testable import SelfieCore
import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Photos in the browser (filesystem store)")
struct PhotoPagesTests {
    @Test("upload, see it in the gallery, fetch the image by its signed URL, open it, delete it")
    func roundTrip() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(name: "Ada Lovelace", email: uniqueEmail())
            #expect(try await browser.get("/gallery").text.contains("Your gallery is empty."))

            let image = TestImage.jpeg(size: 300_000)
            let upload = try await browser.upload(image: image, title: "  On the beach  ")
            #expect(upload.status == .seeOther)
            #expect(upload.location == "/gallery?notice=uploaded")

            let photos = try await browser.galleryPhotos("/gallery?notice=uploaded")
            #expect(photos.count == 1)
            let photo = try #require(photos.first)
            #expect(photo.title == "On the beach", "the caption is trimmed")
            #expect(photo.id.count >= 20)
            #expect(photo.imageURL.hasPrefix("http://localhost/media/"))
            #expect(photo.imageURL.contains("expires=") && photo.imageURL.contains("sig="))

            // a plain GET, no cookies: the signature is the permission; what the grid shows is a
            // thumbnail made from the upload, never the upload itself
            let fetched = try await app.fetchImage(photo.imageURL)
            #expect(fetched.status == .ok)
            #expect(Array(fetched.body.readableBytesView) != image)
            #expect(Array(fetched.body.readableBytesView.prefix(4)) == Array("RIFF".utf8))
            #expect(fetched.headers[.contentType] == "image/webp")
            #expect(fetched.headers[.contentLength] == String(fetched.body.readableBytes))
            #expect(fetched.headers[.eTag]?.isEmpty == false)
            #expect(fetched.headers[.cacheControl]?.hasPrefix("private") == true)
            #expect(fetched.headers[.cacheControl]?.hasSuffix("immutable") == true)
            #expect(fetched.headers[.init("X-Content-Type-Options")!] == "nosniff")
            #expect(fetched.headers[.contentDisposition] == "inline")

            let page = try await browser.get("/photos/\(photo.id)").text
            #expect(page.contains("On the beach"))
            #expect(page.contains("Delete this photo…"))
            // the original is the owner's to download, byte for byte
            let original = try await browser.get("/photos/\(photo.id)/original")
            #expect(original.status == .ok)
            #expect(Array(original.body.readableBytesView) == image)
            #expect(original.headers[.contentDisposition] == "attachment; filename=\"selfie-\(photo.id).jpg\"")
            #expect(app.filesInBlobStore().count == 4, "the original and three renditions")
            let confirm = try await browser.get("/photos/\(photo.id)/delete")
            #expect(confirm.text.contains("Delete this photo?"))

            let deleted = try await browser.submit("/photos/\(photo.id)/delete", from: "/photos/\(photo.id)/delete", [])
            #expect(deleted.location == "/gallery?notice=deleted")
            #expect(try await browser.galleryPhotos().isEmpty)
            #expect(try await app.fetchImage(photo.imageURL).status == .notFound, "the image URL stops working")
            #expect(app.filesInBlobStore().isEmpty)
            #expect(try await app.photoCount() == 0)
        }
    }

    @Test("the stored content type comes from the bytes, not from the client's filename or type")
    func contentTypeFromSniffing() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            try await browser.upload(image: TestImage.png(), title: "", filename: "../../etc/passwd.jpg")
            let stored: String = try await app.scalar("SELECT content_type FROM photos")
            #expect(stored == "image/png")
            let files = app.filesInBlobStore()
            #expect(files.count == 4, "the original and its renditions")
            #expect(files.filter { $0.hasSuffix(".png") }.count == 1, "the original keeps its sniffed type")
            #expect(!files.contains { $0.contains("passwd") })
        }
    }

    @Test("the iOS app's `attachment` part is accepted by the same upload code")
    func iOSMultipart() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let token = try await browser.csrfToken(on: "/photos/new")
            let (contentType, body) = MultipartBody.iOS(image: TestImage.jpeg(), title: "From the phone")
            let response = try await browser.send("/photos?_csrf=\(token)", method: .post, body: body, contentType: contentType)
            #expect(response.status == .seeOther)
            #expect(try await browser.galleryPhotos().first?.title == "From the phone")
        }
    }

    @Test("another user's photo is never listed, shown or deleted")
    func privacy() async throws {
        try await withTestApp { app in
            let owner = app.browser()
            try await owner.signUp(email: uniqueEmail("owner"))
            try await owner.upload(image: TestImage.jpeg(), title: "Mine")
            let photo = try #require(try await owner.galleryPhotos().first)

            let other = app.browser()
            try await other.signUp(email: uniqueEmail("other"))
            let othersGallery = try await other.get("/gallery")
            #expect(othersGallery.status == .ok && othersGallery.text.contains("Your gallery is empty.") && !othersGallery.text.contains(photo.id))
            #expect(try await other.get("/photos/\(photo.id)").status == .notFound)
            #expect(try await other.get("/photos/\(photo.id)/delete").status == .notFound)
            let token = try await other.csrfToken(on: "/gallery")
            #expect(try await other.post("/photos/\(photo.id)/delete", form: [("_csrf", token)]).status == .notFound)
            #expect(try await app.photoCount() == 1)
            #expect(try await app.fetchImage(photo.imageURL).status == .ok, "still there")
        }
    }

    @Test("image URLs without a valid, unexpired signature are refused with 403")
    func signedURLs() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            try await browser.upload(image: TestImage.jpeg())
            let url = try #require(try await browser.galleryPhotos().first).imageURL
            let unsigned = String(url.prefix { $0 != "?" })
            #expect(try await app.fetchImage(unsigned).status == .forbidden)

            var tampered = url
            tampered.replaceSubrange(tampered.index(before: tampered.endIndex)..., with: url.hasSuffix("A") ? "B" : "A")
            #expect(try await app.fetchImage(tampered).status == .forbidden)

            let laterExpiry = url.replacingOccurrences(of: "expires=", with: "expires=9")
            #expect(try await app.fetchImage(laterExpiry).status == .forbidden, "the expiry is signed too")

            let key = try #require(BlobKey(String(unsigned.split(separator: "/").last!)))
            let signer = MediaURLSigner(secretKey: app.config.secretKey, publicURL: app.config.publicURL)
            let expired = signer.url(for: key, lifetime: .seconds(60), now: .now.addingTimeInterval(-7200))
            let response = try await app.fetchImage(expired)
            #expect(response.status == .forbidden)
            #expect(response.text.contains("This image link has expired."))
        }
    }

    @Test("a Range request gets 206 with exactly those bytes; an impossible range gets 416")
    func ranges() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            try await browser.upload(image: Array(try PhotoFixtures.bytes("camera.jpg").readableBytesView))
            let url = try #require(try await browser.galleryPhotos().first).imageURL
            let image = Array(try await app.fetchImage(url).body.readableBytesView)
            #expect(image.count > 2000)

            let middle = try await app.fetchImage(url, headers: [.range: "bytes=1000-1999"])
            #expect(middle.status == .partialContent)
            #expect(Array(middle.body.readableBytesView) == Array(image[1000...1999]))
            #expect(middle.headers[.contentRange] == "bytes 1000-1999/\(image.count)")

            let tail = try await app.fetchImage(url, headers: [.range: "bytes=-100"])
            #expect(Array(tail.body.readableBytesView) == Array(image.suffix(100)))

            let open = try await app.fetchImage(url, headers: [.range: "bytes=\(image.count - 500)-"])
            #expect(Array(open.body.readableBytesView) == Array(image.suffix(500)))

            let beyond = try await app.fetchImage(url, headers: [.range: "bytes=\(image.count)-"])
            #expect(beyond.status == .rangeNotSatisfiable)
            #expect(beyond.headers[.contentRange] == "bytes */\(image.count)")
        }
    }

    @Test("non-images are refused with 415 and nothing is stored", arguments: [
        ("text saved as .png", TestImage.text()),
        ("random bytes", TestImage.noise(5000, seed: 9)),
    ])
    func nonImages(name: String, bytes: [UInt8]) async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let response = try await browser.upload(image: bytes, title: name, filename: "photo.png")
            #expect(response.status == .unsupportedMediaType)
            #expect(response.text.contains("Only JPEG, PNG, GIF, WebP and HEIC photos can be uploaded."))
            #expect(try await app.photoCount() == 0)
            #expect(app.filesInBlobStore().isEmpty)
        }
    }

    @Test("an oversize upload is refused with 413 before it is read whole; nothing is stored; the server stays healthy")
    func oversize() async throws {
        try await withTestApp(configure: { $0.maxUploadBytes = 100 * 1024 }) { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let started = ContinuousClock.now
            let response = try await browser.upload(image: TestImage.jpeg(size: 3 * 1024 * 1024))
            #expect(response.status == .contentTooLarge)
            #expect(response.text.contains("This photo is too large: the limit is 100 KB."))
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(try await app.photoCount() == 0)
            #expect(app.filesInBlobStore().isEmpty)
            #expect(try await app.client.execute(uri: "/healthz", method: .get).status == .ok)
            // just under the limit is fine
            #expect(try await browser.upload(image: TestImage.jpeg(size: 90 * 1024)).status == .seeOther)
        }
    }

    @Test("captions: empty is fine, over 500 characters is refused, nothing stored")
    func captions() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            #expect(try await browser.upload(image: TestImage.jpeg(), title: "").status == .seeOther)
            let long = try await browser.upload(image: TestImage.jpeg(), title: String(repeating: "é", count: 501))
            #expect(long.status == .unprocessableContent)
            #expect(long.text.contains("Use at most 500 characters for the caption."))
            #expect(try await app.photoCount() == 1)
            #expect(app.filesInBlobStore().count == 4, "the one photo's original and renditions")
            let missing = try await browser.upload(image: nil, title: "no file")
            #expect(missing.status == .unprocessableContent)
            #expect(missing.text.contains("Choose a photo to upload."))
        }
    }

    @Test("a failing row insert leaves no blob behind")
    func failingInsert() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            try await app.db { client in
                try await client.query(
                    "CREATE FUNCTION refuse_photo() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no photos today'; END $$"
                )
                try await client.query("CREATE TRIGGER refuse_photo BEFORE INSERT ON photos FOR EACH ROW EXECUTE FUNCTION refuse_photo()")
            }
            let response = try await browser.upload(image: TestImage.jpeg())
            #expect(response.status == .internalServerError)
            #expect(!response.text.contains("no photos today"))
            #expect(try await app.photoCount() == 0)
            #expect(app.filesInBlobStore().isEmpty)
        }
    }

    @Test("the upload form's POST needs the CSRF token")
    func uploadNeedsCSRF() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let (contentType, body) = MultipartBody.browser(image: TestImage.jpeg(), title: "")
            let response = try await browser.send("/photos", method: .post, body: body, contentType: contentType)
            #expect(response.status == .forbidden)
            #expect(try await app.photoCount() == 0)
        }
    }

    @Test("the gallery pages 24 at a time, newest first")
    func pagination() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            for number in 1...27 {
                try await browser.upload(image: TestImage.jpeg(size: 100, seed: UInt64(number)), title: "Photo \(number)")
            }
            let first = try await browser.galleryPhotos()
            #expect(first.map(\.title) == (4...27).reversed().map { "Photo \($0)" })
            let html = try await browser.get("/gallery").text
            let older = try #require(html.firstCapture(of: #"<a href="(/gallery\?after=[^"]+)">Older photos"#))
            let second = try await browser.galleryPhotos(older)
            #expect(second.map(\.title) == ["Photo 3", "Photo 2", "Photo 1"])
            #expect(!(try await browser.get(older).text.contains("Older photos →")))
        }
    }

    @Test("the sweep reports old blobs without a row (and keeps them) and rows without a blob")
    func sweep() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            try await browser.upload(image: TestImage.jpeg(), title: "kept")
            try await browser.upload(image: TestImage.jpeg(), title: "loses its blob")

            // an orphan: a blob stored by an upload whose row never came (a crash between the two)
            let orphan = try #require(BlobKey.random(contentType: "image/jpeg"))
            let writer = try await app.blobs.makeWriter(for: orphan)
            try await writer.write(ByteBuffer(bytes: TestImage.jpeg()))
            try await writer.commit()
            let fresh = try #require(BlobKey.random(contentType: "image/jpeg"))
            let freshWriter = try await app.blobs.makeWriter(for: fresh)
            try await freshWriter.write(ByteBuffer(bytes: TestImage.jpeg()))
            try await freshWriter.commit()

            let missing: String = try await app.scalar("SELECT blob_key FROM photos WHERE title = 'loses its blob'")
            try await app.blobs.delete(try #require(BlobKey(missing)))
            let missingID: String = try await app.scalar("SELECT public_id FROM photos WHERE title = 'loses its blob'")

            let report = try await app.db { client in
                try await BlobSweeper(
                    photos: PhotoRepository(client: client, logger: testLogger), resumable: ResumableUploadRepository(client: client, logger: testLogger),
                    blobs: app.blobs, logger: testLogger
                )
                    .sweep(minimumAge: .seconds(3600), now: .now.addingTimeInterval(7200))
            }
            // "now" two hours ahead: every blob counts as old; only the orphans have no row
            #expect(Set(report.orphans) == [orphan, fresh])
            #expect(report.rowsMissingBlobs == [missingID])
            #expect(try await app.blobs.exists(orphan), "never deleted: it may be a photo whose row a restore took back")
            let kept: String = try await app.scalar("SELECT blob_key FROM photos WHERE title = 'kept'")
            #expect(try await app.blobs.exists(try #require(BlobKey(kept))))

            // and a blob younger than the minimum age is left alone (it may be an upload in flight)
            let young = try #require(BlobKey.random(contentType: "image/png"))
            let youngWriter = try await app.blobs.makeWriter(for: young)
            try await youngWriter.write(ByteBuffer(bytes: TestImage.png()))
            try await youngWriter.commit()
            let second = try await app.db { client in
                try await BlobSweeper(
                    photos: PhotoRepository(client: client, logger: testLogger), resumable: ResumableUploadRepository(client: client, logger: testLogger),
                    blobs: app.blobs, logger: testLogger
                )
                    .sweep(minimumAge: .seconds(3600))
            }
            #expect(second.orphans.isEmpty)
            #expect(try await app.blobs.exists(young))
        }
    }
}

@Suite("Uploads on the wire: streaming limits")
struct UploadStreamingTests {
    /// A chunked request (no Content-Length), so only the limit counted as bytes arrive can stop it.
    func chunkedUpload(port: Int, path: String, headers: [(String, String)], body: ByteBuffer) async throws -> (Int, String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let chunks = stride(from: 0, to: body.readableBytes, by: 64 * 1024).map {
            body.getSlice(at: $0, length: min(64 * 1024, body.readableBytes - $0))!
        }
        request.body = .stream(chunks.async, length: .unknown)
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(20))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1024 * 1024)))
    }

    @Test("an oversize photo sent without Content-Length is stopped by the streaming cap (413), nothing stored")
    func chunkedOversize() async throws {
        try await withTestApp(configure: { $0.maxUploadBytes = 256 * 1024 }) { app in
            let token = try await app.api.signedInUser()
            let (contentType, body) = MultipartBody.iOS(image: TestImage.jpeg(size: 2 * 1024 * 1024), title: "big")
            let (status, text) = try await chunkedUpload(
                port: try #require(app.client.port),
                path: "/api/upload_photo",
                headers: [("Content-Type", contentType), ("Authorization", "Token token=\(token)")],
                body: body
            )
            #expect(status == 413)
            #expect(text.contains("This photo is too large"))
            #expect(try await app.photoCount() == 0)
            #expect(app.filesInBlobStore().isEmpty)
            // and an image just over the cap inside a body under the envelope is refused too
            let (_, small) = MultipartBody.iOS(image: TestImage.jpeg(size: 256 * 1024 + 10), title: "")
            let (justOver, _) = try await chunkedUpload(
                port: try #require(app.client.port),
                path: "/api/upload_photo",
                headers: [("Content-Type", contentType), ("Authorization", "Token token=\(token)")],
                body: small
            )
            #expect(justOver == 413)
            #expect(app.filesInBlobStore().isEmpty)
        }
    }

    @Test("a multipart part with kilobytes of header is refused with 400")
    func hugePartHeader() async throws {
        try await withTestApp { app in
            let token = try await app.api.signedInUser()
            var body = ByteBuffer()
            body.writeString("--b\r\nContent-Disposition: form-data; name=\"image\"; filename=\"" + String(repeating: "x", count: 40 * 1024) + "\"\r\n\r\n")
            body.writeBytes(TestImage.jpeg())
            body.writeString("\r\n--b--\r\n")
            let (status, text) = try await chunkedUpload(
                port: try #require(app.client.port),
                path: "/api/upload_photo",
                headers: [("Content-Type", "multipart/form-data; boundary=b"), ("Authorization", "Token token=\(token)")],
                body: body
            )
            #expect(status == 400)
            #expect(text.contains("The upload could not be read."))
        }
    }

    @Test("temporary files of uploads that never finished are swept")
    func staleTemporaryFiles() async throws {
        try await withTestApp { app in
            let key = try #require(BlobKey.random(contentType: "image/jpeg"))
            let writer = try await app.blobs.makeWriter(for: key)
            try await writer.write(ByteBuffer(bytes: TestImage.jpeg()))
            // neither commit nor abort: as if the server had crashed mid-upload
            #expect(app.filesInBlobStore().count == 1)
            #expect(try await app.blobs.removeIncompleteUploads(olderThan: .now.addingTimeInterval(-3600)) == 0, "a young upload is left alone")
            #expect(try await app.blobs.removeIncompleteUploads(olderThan: .now.addingTimeInterval(3600)) == 1)
            #expect(app.filesInBlobStore().isEmpty)
            await writer.abort()
        }
    }

    @Test("an upload cut off by a cancelled request (shutdown, client gone) leaves no file")
    func cancelledRequest() async throws {
        try await withTestApp { app in
            let key = try #require(BlobKey.random(contentType: "image/jpeg"))
            let writer = try await app.blobs.makeWriter(for: key)
            try await writer.write(ByteBuffer(bytes: TestImage.jpeg()))
            #expect(app.filesInBlobStore().count == 1)
            await inCancelledTask { [writer = UncheckedSendable(writer)] in await writer.value.abort() }
            #expect(app.filesInBlobStore().isEmpty)
        }
    }
}

@Suite("Filesystem store faults")
struct FileStoreFaultTests {
    /// Makes a folder unwritable even for root (the immutable attribute), for the test's duration.
    func immutable(_ path: String, _ on: Bool) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [on ? "+i" : "-i", path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestSetupError("chattr failed on \(path)") }
    }

    @Test("an unwritable photo folder: a clear 503 (page and JSON), no row, nothing half-written")
    func unwritable() async throws {
        try await withTestApp { app in
            guard case .filesystem(let root) = app.config.blobStore else { throw TestSetupError("not a filesystem store") }
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let token = try await app.api.signedInUser()
            try immutable(root, true)
            defer { try? immutable(root, false) }

            let page = try await browser.upload(image: TestImage.jpeg())
            #expect(page.status == .serviceUnavailable)
            #expect(page.text.contains("Photo storage is unavailable right now."))
            let api = try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(), title: "")
            #expect(try api.apiError() == (503, "Photo storage is unavailable right now. Please try again shortly."))
            #expect(try await app.photoCount() == 0)
            #expect(app.filesInBlobStore().isEmpty)
        }
    }
}
