@testable import App
@testable import SelfieCore
import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@Suite("S3-compatible store (nanio checks signatures, moto checks behaviour)")
struct S3StoreTests {
    func write(_ bytes: [UInt8], to store: any BlobStore, as key: BlobKey, chunk: Int = 64 * 1024) async throws {
        let writer = try await store.makeWriter(for: key)
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            try await writer.write(ByteBuffer(bytes: bytes[start..<min(start + chunk, bytes.count)]))
        }
        try await writer.commit()
    }

    func collect(_ content: BlobContent) async throws -> [UInt8] {
        let collector = BodyCollector()
        try await content.body.write { await collector.append($0) }
        return await collector.bytes
    }

    @Test("put, read, range, list, presigned GET, delete", arguments: S3Peer.allCases)
    func roundTrip(peer: S3Peer) async throws {
        let store = S3BlobStore(configuration: try await peer.makeBucket(), logger: testLogger)
        let key = try #require(BlobKey.random(contentType: "image/jpeg"))
        let image = TestImage.jpeg(size: 200_000)
        try await write(image, to: store, as: key)

        #expect(try await store.exists(key))
        let content = try #require(try await store.read(key, range: nil))
        #expect(content.totalSize == image.count)
        #expect(content.contentType == "image/jpeg")
        #expect(try await collect(content) == image)

        let part = try #require(try await store.read(key, range: .from(100, through: 199)))
        #expect(try await collect(part) == Array(image[100...199]))

        let listed = try await store.list()
        #expect(listed.map(\.key) == [key])
        #expect(abs(listed[0].lastModified.timeIntervalSinceNow) < 300)

        let fetched = try await plainGET(store.signedURL(for: key, lifetime: .seconds(300)))
        #expect(fetched.status == 200)
        #expect(fetched.body == image)

        try await store.delete(key)
        #expect(try await store.exists(key) == false)
        #expect(try await store.read(key, range: nil) == nil)
        #expect(try await store.list().isEmpty)
        try await store.delete(key)  // deleting twice is fine
    }

    @Test("a photo over 8 MiB goes up as a multipart upload and comes back whole", arguments: S3Peer.allCases)
    func multipart(peer: S3Peer) async throws {
        let store = S3BlobStore(configuration: try await peer.makeBucket(), logger: testLogger)
        let key = try #require(BlobKey.random(contentType: "image/png"))
        let image = TestImage.png(size: 9 * 1024 * 1024 + 12345)
        try await write(image, to: store, as: key, chunk: 1024 * 1024)
        let content = try #require(try await store.read(key, range: nil))
        #expect(content.totalSize == image.count)
        let body = try await collect(content)
        #expect(body.count == image.count)
        #expect(body == image)
    }

    @Test("a page of ListMultipartUploads that S3 cut short names where the next one starts (neither test peer pages: moto and nanio answer every upload at once)")
    func multipartListingPages() throws {
        // The shape of AWS's documented answer, two of its uploads on this page.
        let truncated = """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Bucket>bucket</Bucket>
              <KeyMarker></KeyMarker>
              <UploadIdMarker></UploadIdMarker>
              <NextKeyMarker>my-movie.m2ts</NextKeyMarker>
              <NextUploadIdMarker>YW55IGlkZWEgd2h5IGVsdmluZydzIHVwbG9hZCBmYWlsZWQ</NextUploadIdMarker>
              <MaxUploads>2</MaxUploads>
              <IsTruncated>true</IsTruncated>
              <Upload>
                <Key>my-divisor</Key>
                <UploadId>XMgbGlrZSBlbHZpbmcncyBub3QgaGF2aW5nIG11Y2ggbHVjaw</UploadId>
                <StorageClass>STANDARD</StorageClass>
                <Initiated>2010-11-10T20:48:33.000Z</Initiated>
              </Upload>
              <Upload>
                <Key>my-movie.m2ts</Key>
                <UploadId>YW55IGlkZWEgd2h5IGVsdmluZydzIHVwbG9hZCBmYWlsZWQ</UploadId>
                <StorageClass>STANDARD</StorageClass>
                <Initiated>2010-11-10T20:48:33.000Z</Initiated>
              </Upload>
            </ListMultipartUploadsResult>
            """
        let page = MultipartUploadListing(xml: truncated)
        #expect(page.uploads.map(\.key) == ["my-divisor", "my-movie.m2ts"])
        #expect(page.uploads.first?.id == "XMgbGlrZSBlbHZpbmcncyBub3QgaGF2aW5nIG11Y2ggbHVjaw")
        #expect(page.uploads.first?.initiated == Date(timeIntervalSince1970: 1_289_422_113))
        #expect(page.next?.keyMarker == "my-movie.m2ts")
        #expect(page.next?.uploadIDMarker == "YW55IGlkZWEgd2h5IGVsdmluZydzIHVwbG9hZCBmYWlsZWQ")
        let last = MultipartUploadListing(xml: truncated.replacingOccurrences(of: "<IsTruncated>true", with: "<IsTruncated>false"))
        #expect(last.next == nil, "the last page")
    }

    @Test("a DELETE answered 404 for the bucket itself (a wrong bucket name, a wrong endpoint path) fails, and is not taken for an object already gone (the deletion queue would drop it for good)", arguments: S3Peer.allCases)
    func deleteFromAMissingBucket(peer: S3Peer) async throws {
        var wrong = try await peer.makeBucket()
        wrong.bucket += "-absent"
        let store = S3BlobStore(configuration: wrong, logger: testLogger)
        let key = try #require(BlobKey.random(contentType: "image/jpeg"))
        await #expect(throws: BlobStoreError.self) { try await store.delete(key) }
        let right = S3BlobStore(configuration: try await peer.makeBucket(), logger: testLogger)
        try await right.delete(key)  // a missing object in a bucket that exists is gone already
    }

    @Test("a photo of more than one part goes up through a slow link to the store (a home server's uplink): the deadline grows with the body instead of cutting every large photo off")
    func slowLinkToTheStore() async throws {
        try await SilentProxy.with { proxy in
            var configuration = try await S3Peer.nanio.makeBucket()
            proxy.forward(to: try #require(configuration.endpoint.host), port: try #require(configuration.endpoint.port))
            configuration.endpoint = try #require(URL(string: "http://127.0.0.1:\(proxy.port)"))
            proxy.throttle(bytesPerSecond: 1_000_000)
            var store = S3BlobStore(configuration: configuration, logger: testLogger)
            store.client.timeout = .seconds(2)  // a 5 MiB part then takes more than twice the fixed deadline
            let key = try #require(BlobKey.random(contentType: "image/jpeg"))
            let image = TestImage.jpeg(size: 5 * 1024 * 1024 + 4096)
            try await write(image, to: store, as: key, chunk: 1024 * 1024)
            let content = try #require(try await store.read(key, range: nil))
            #expect(try await collect(content) == image)
        }
    }

    @Test("an aborted upload leaves no object", arguments: S3Peer.allCases)
    func abort(peer: S3Peer) async throws {
        let store = S3BlobStore(configuration: try await peer.makeBucket(), logger: testLogger)
        let key = try #require(BlobKey.random(contentType: "image/jpeg"))
        let writer = try await store.makeWriter(for: key)
        try await writer.write(ByteBuffer(bytes: TestImage.jpeg(size: 9 * 1024 * 1024)))  // one part already sent
        await writer.abort()
        #expect(try await store.exists(key) == false)
        #expect(try await store.list().isEmpty)
        #expect(try await store.removeIncompleteUploads(olderThan: .now.addingTimeInterval(3600)) == 0, "the abort removed the upload")
    }

    @Test("an upload aborted by a cancelled request (shutdown, client gone) still removes its parts", arguments: S3Peer.allCases)
    func abortWhenCancelled(peer: S3Peer) async throws {
        let store = S3BlobStore(configuration: try await peer.makeBucket(), logger: testLogger)
        let key = try #require(BlobKey.random(contentType: "image/jpeg"))
        let writer = try await store.makeWriter(for: key)
        try await writer.write(ByteBuffer(bytes: TestImage.jpeg(size: 9 * 1024 * 1024)))  // one part already sent
        await inCancelledTask { [writer = UncheckedSendable(writer)] in await writer.value.abort() }
        #expect(try await store.removeIncompleteUploads(olderThan: .now.addingTimeInterval(3600)) == 0, "the abort removed the upload")
    }

    @Test("at shutdown the store's HTTP client waits for a cut-off upload's clean-up before it closes", arguments: S3Peer.allCases)
    func cleanUpBeforeClientShutdown(peer: S3Peer) async throws {
        let configuration = try await peer.makeBucket()
        let service = HTTPClientService()
        let store = S3BlobStore(configuration: configuration, http: service.client, logger: testLogger)
        let key = try #require(BlobKey.random(contentType: "image/jpeg"))
        let writer = try await store.makeWriter(for: key)
        try await writer.write(ByteBuffer(bytes: TestImage.jpeg(size: 9 * 1024 * 1024)))  // one part already sent
        let running = Task { try await service.run() }
        // This abort's own clean-up, not another test's (CleanUps.inFlight counts the whole process).
        let tally = CleanUps.Tally()
        let aborting = Task {
            await CleanUps.$tally.withValue(tally) {
                await inCancelledTask { [writer = UncheckedSendable(writer)] in await writer.value.abort() }
            }
        }
        while tally.begun.load(ordering: .acquiring) == 0 { await Task.yield() }
        running.cancel()  // shutdown escalated to cancellation while the abort is under way
        try await running.value
        await aborting.value
        let checker = S3BlobStore(configuration: configuration, logger: testLogger)
        #expect(try await checker.removeIncompleteUploads(olderThan: .now.addingTimeInterval(3600)) == 0, "the abort removed the upload")
    }

    @Test("a multipart upload left unfinished (a crash) is found and aborted by the sweep", arguments: S3Peer.allCases)
    func unfinishedMultipart(peer: S3Peer) async throws {
        let store = S3BlobStore(configuration: try await peer.makeBucket(), logger: testLogger)
        let key = try #require(BlobKey.random(contentType: "image/jpeg"))
        let writer = try await store.makeWriter(for: key)
        try await writer.write(ByteBuffer(bytes: TestImage.jpeg(size: 9 * 1024 * 1024)))  // one part sent, then nothing
        if peer == .nanio {
            // (moto reports every upload as initiated on 2010-11-10, so only nanio can show the age rule)
            #expect(try await store.removeIncompleteUploads(olderThan: .now.addingTimeInterval(-3600)) == 0, "a young upload is left alone")
        }
        #expect(try await store.removeIncompleteUploads(olderThan: .now.addingTimeInterval(3600)) == 1)
        #expect(try await store.removeIncompleteUploads(olderThan: .now.addingTimeInterval(3600)) == 0)
    }

    @Test("nanio refuses a tampered presigned URL and wrong credentials")
    func signaturesAreChecked() async throws {
        let configuration = try await S3Peer.nanio.makeBucket()
        let store = S3BlobStore(configuration: configuration, logger: testLogger)
        let key = try #require(BlobKey.random(contentType: "image/jpeg"))
        try await write(TestImage.jpeg(), to: store, as: key)
        let url = store.signedURL(for: key, lifetime: .seconds(300))
        let expires = try #require(url.firstCapture(of: #"X-Amz-Expires=(\d+)"#))
        let tampered = url.replacingOccurrences(of: "X-Amz-Expires=\(expires)", with: "X-Amz-Expires=\(Int(expires)! + 3600)")
        #expect(tampered != url)
        #expect(try await plainGET(tampered).status == 403)
        #expect(try await plainGET(url).status == 200)

        var wrong = configuration
        wrong.credentials.secretAccessKey = "not-the-secret"
        let impostor = S3BlobStore(configuration: wrong, logger: testLogger)
        await #expect(throws: BlobStoreError.self) { try await impostor.exists(key) }
    }

    @Test("the app on S3: upload, gallery image from a presigned URL, delete removes the object", arguments: S3Peer.allCases)
    func appRoundTrip(peer: S3Peer) async throws {
        let bucket = try await peer.makeBucket()
        try await withTestApp(configure: { $0.blobStore = .s3(bucket) }) { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let image = TestImage.jpeg(size: 150_000)
            #expect(try await browser.upload(image: image, title: "In the cloud").status == .seeOther)
            let photo = try #require(try await browser.galleryPhotos().first)
            #expect(photo.title == "In the cloud")
            #expect(photo.imageURL.hasPrefix(bucket.endpoint.absoluteString + "/" + bucket.bucket + "/photos/"))
            #expect(photo.imageURL.contains("X-Amz-Signature="))
            let fetched = try await plainGET(photo.imageURL)
            #expect(fetched.status == 200)
            #expect(Array(fetched.body.prefix(4)) == Array("RIFF".utf8), "the grid's WebP thumbnail, not the upload")
            #expect(try await app.blobs.list().count == 4, "the original and three renditions")
            #expect(try await browser.get("/photos/\(photo.id)/original").body.readableBytesView.elementsEqual(image))

            try await browser.submit("/photos/\(photo.id)/delete", from: "/photos/\(photo.id)/delete", [])
            #expect(try await app.blobs.list().isEmpty)
            #expect(try await app.photoCount() == 0)
        }
    }

    @Test("an unreachable store: the upload gets a 503 page and no row is written")
    func unreachable() async throws {
        var unreachable = try S3Peer.moto.configuration(bucket: "unreachable")
        unreachable.endpoint = URL(string: "http://127.0.0.1:1")!
        let bucket = unreachable
        try await withTestApp(configure: { $0.blobStore = .s3(bucket) }) { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let response = try await browser.upload(image: TestImage.jpeg())
            #expect(response.status == .serviceUnavailable)
            #expect(response.text.contains("Photo storage is unavailable right now."))
            let token = try await app.api.signedInUser()
            let api = try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(), title: "")
            #expect(try api.apiError() == (503, "Photo storage is unavailable right now. Please try again shortly."))
            #expect(try await app.photoCount() == 0)
        }
    }

    @Test("a store whose answer breaks off mid-body (a reset, a read timeout): the upload, which reads its original back for the renditions, gets the storage 503 (not a 500) and leaves no row and no object")
    func bodyBreaksOff() async throws {
        try await SilentProxy.withBucket(on: .moto) { proxy, bucket in
            try await withTestApp(configure: { $0.blobStore = .s3(bucket) }) { app in
                let browser = app.browser()
                try await browser.signUp(email: uniqueEmail())
                proxy.breakReplies(after: 16 * 1024)
                let response = try await browser.upload(image: TestImage.jpeg(size: 150_000))
                #expect(response.status == .serviceUnavailable)
                #expect(response.text.contains("Photo storage is unavailable right now."))
                let token = try await app.api.signedInUser()
                proxy.breakReplies(after: 16 * 1024)
                let api = try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(size: 150_000), title: "")
                #expect(try api.apiError() == (503, "Photo storage is unavailable right now. Please try again shortly."))
                proxy.breakReplies(after: nil)
                #expect(try await app.photoCount() == 0)
                #expect(try await app.blobs.list().isEmpty, "the original it wrote is deleted again")
            }
        }
    }

    @Test("a kept-alive connection the store closes just as a request goes out, unanswered: an idempotent request is sent once more and succeeds")
    func connectionClosedUnanswered() async throws {
        try await SilentProxy.withBucket(on: .nanio) { proxy, bucket in
            let http = HTTPClient(eventLoopGroupProvider: .singleton)
            let store = S3BlobStore(configuration: bucket, http: http, logger: testLogger)
            let key = try #require(BlobKey.random(contentType: "image/jpeg"))
            try await write(TestImage.jpeg(), to: store, as: key)
            // The connection that asked once is closed when it asks again, the request dropped.
            proxy.cut(after: "HEAD /", at: "HEAD /", delivered: false)
            #expect(try await store.exists(key))
            #expect(try await store.exists(key), "asked again on a new connection")
            #expect(proxy.hasCut, "the second HEAD met the closed connection")
            try await http.shutdown()
        }
    }

    @Test("requests are addressed path-style or virtual-host style")
    func addressing() throws {
        var configuration = S3Configuration(
            endpoint: URL(string: "https://s3.eu-west-1.amazonaws.com")!,
            region: "eu-west-1",
            bucket: "my-bucket",
            credentials: AWSCredentials(accessKeyID: "a", secretAccessKey: "b"),
            addressing: .virtualHost
        )
        let virtual = S3Client(configuration: configuration, logger: testLogger).location(objectKey: "photos/a b.jpg")
        #expect(virtual.host == "my-bucket.s3.eu-west-1.amazonaws.com")
        #expect(virtual.path == "/photos/a%20b.jpg")
        configuration.addressing = .path
        configuration.endpoint = URL(string: "http://127.0.0.1:9000")!
        let path = S3Client(configuration: configuration, logger: testLogger).location(objectKey: "photos/x.jpg")
        #expect(path.host == "127.0.0.1:9000")
        #expect(path.path == "/my-bucket/photos/x.jpg")
    }
}

/// Collects a blob's body as it is read.
actor BodyCollector {
    var bytes: [UInt8] = []
    func append(_ buffer: ByteBuffer) { bytes += Array(buffer.readableBytesView) }
}
