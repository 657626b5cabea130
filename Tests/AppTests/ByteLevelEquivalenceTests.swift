import Base64URLCoding
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PostgresNIO
import Testing
@testable import App
@testable import SelfieCore

/// The byte-level replacements on the hot paths give exactly what the Foundation code they
/// replaced gave, and the fingerprinted stylesheet is served as a browser may cache it for good.
@Suite("Byte-level code equals what it replaced: encoders, signed URLs, fingerprinted assets, views, escaping")
struct ByteLevelEquivalenceTests {
    /// Random bytes of every length up to 100, and then some.
    static func randomByteStrings() -> [[UInt8]] {
        var generator = SystemRandomNumberGenerator()
        return (0..<2000).map { index in
            (0..<(index < 101 ? index : Int.random(in: 0...300, using: &generator))).map { _ in
                UInt8.random(in: .min ... .max, using: &generator)
            }
        }
    }

    @Test("base64url is Foundation's base64 with + → -, / → _ and no padding, for any bytes")
    func base64URL() throws {
        for bytes in Self.randomByteStrings() {
            let foundation = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == foundation)
            #expect(Base64URL.decode(foundation) == bytes)
        }
        // A slice that does not start at index 0 (HMACs and digests are handed over as such).
        let bytes: [UInt8] = Array(0...255)
        #expect(Base64URL.encode(bytes[7..<40]) == Base64URL.encode(Array(bytes[7..<40])))
    }

    @Test("hex is String(format: \"%02x\") per byte")
    func hex() {
        for bytes in Self.randomByteStrings().prefix(300) {
            #expect(bytes.hexString == bytes.map { String(format: "%02x", $0) }.joined())
        }
    }

    @Test("the JSON written byte by byte is JSONEncoder's (.sortedKeys), whatever the strings hold")
    func photoJSON() throws {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "/", "\\", "\"", "é", "😀", "\u{2028}", "\u{7F}", "\u{85}", " ", "http://x/media/k.jpg?a=1&b=2", "<&>'"]
            + (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
        func randomText() -> String {
            (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for count in [0, 1, 2, 20, 57] {
            let photos = (0..<count).map { _ in
                APIController.PhotoJSON(name: randomText(), title: randomText(), randomID: randomText(), imageURL: randomText(), takenAt: Bool.random() ? randomText() : nil)
            }
            var json = JSONBytes(capacity: 16)
            photos.write(to: &json)
            #expect(Array(json.buffer.readableBytesView) == Array(try encoder.encode(photos)))
        }
    }

    @Test("blob keys: byte-level checks accept and refuse exactly what the string checks did")
    func blobKeys() {
        func accepted(_ value: String) -> Bool {
            let parts = value.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 2 && parts[0].utf8.count == 32
                && parts[0].utf8.allSatisfy(Base64URL.isSymbol)
                && BlobKey.extensions.values.contains(String(parts[1]))
        }
        let valid = "AbCdEfGhIjKlMnOpQrStUvWxYz012-_9"
        var candidates = [valid + ".jpg", valid + ".webp", valid + ".heic", valid + ".JPG", valid + ".jpg.jpg", valid + ".", valid,
            "../" + valid.dropFirst(3) + ".jpg", valid.dropLast() + ".jpg", valid + "x.jpg", valid + ".jp", "", ".jpg",
            valid.replacingOccurrences(of: "A", with: "é") + ".png", valid.replacingOccurrences(of: "A", with: "/") + ".gif"]
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aZ09-_./é+=")
        for _ in 0..<2000 {
            var key = String((0..<32).map { _ in Int.random(in: 0..<10, using: &generator) == 0 ? alphabet.randomElement(using: &generator)! : "a" })
            key += [".jpg", ".png", ".webp", "jpg", ".txt", ".gif", ".heic.", ""].randomElement(using: &generator)!
            candidates.append(key)
        }
        for candidate in candidates {
            #expect((BlobKey(candidate) != nil) == accepted(candidate), "\(candidate)")
        }
        #expect(BlobKey(valid + ".webp")?.contentType == "image/webp")
        #expect(BlobKey(valid + ".jpg")?.contentType == "image/jpeg")
    }

    @Test("percent-encoding: every byte but the unreserved ones as %XX, as Foundation encodes it; text that needs none unchanged")
    func percentEncoding() {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")
        let withSlash = unreserved.union(CharacterSet(charactersIn: "/"))
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "Z", "0", "-", "_", ".", "~", "/", " ", "%", "&", "=", "+", "?", "#", "é", "😀", "\u{0}", "\n"]
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(PercentEncoding.encode(text) == text.addingPercentEncoding(withAllowedCharacters: unreserved), "\(Array(text.unicodeScalars))")
            #expect(PercentEncoding.encode(text, keepingSlash: true) == text.addingPercentEncoding(withAllowedCharacters: withSlash), "\(Array(text.unicodeScalars))")
        }
        #expect(PercentEncoding.encode("Ab3_-.~") == "Ab3_-.~")
        #expect(PercentEncoding.encode("a/b c") == "a%2Fb%20c")
        #expect(PercentEncoding.encode("a/b c", keepingSlash: true) == "a/b%20c")
    }

    @Test("a rendition packed by the photo query reads back field by field")
    func packedRendition() throws {
        let key = "AbCdEfGhIjKlMnOpQrStUvWxYz012-_9.webp"
        let rendition = try #require(PhotoRendition(packed: "thumb-400\t\(key)\timage/webp\t400\t300\t12345"))
        #expect(rendition.name == .thumbnail400)
        #expect(rendition.blobKey.value == key)
        #expect(rendition.contentType == "image/webp")
        #expect((rendition.width, rendition.height, rendition.byteSize) == (400, 300, 12345))
        #expect(PhotoRendition(packed: "thumb-400\t\(key)\timage/webp\t400\t300") == nil)
        #expect(PhotoRendition(packed: "thumb-401\t\(key)\timage/webp\t400\t300\t1") == nil)
        #expect(PhotoRendition(packed: "thumb-400\t\(key)\timage/webp\t4x0\t300\t1") == nil)
    }

    @Test("signed media URLs: the same URL and signature as before, and they verify")
    func signedURLs() throws {
        let secret = try SecretKey("test-secret-key-that-is-long-enough-0123456789")
        let signer = MediaURLSigner(secretKey: secret, publicURL: URL(string: "https://photos.example.com")!)
        let key = try #require(BlobKey("AbCdEfGhIjKlMnOpQrStUvWxYz012-_9.jpg"))
        let now = Date(timeIntervalSince1970: 1_800_000_123)
        let url = signer.url(for: key, lifetime: .seconds(3600), now: now)
        // What Foundation's Data + HMAC + replacingOccurrences made for the same key and expiry.
        let expires = (1_800_000_123 + 3600 + 899) / 900 * 900
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(key.value)\n\(expires)".utf8), using: secret.derived(for: "media-url"))
        let signature = Data(mac).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(url == "https://photos.example.com/media/\(key.value)?expires=\(expires)&sig=\(signature)")
        #expect(signer.verify(blob: key, expires: String(expires), signature: signature, now: now) == .valid)
        #expect(signer.verify(blob: key, expires: String(expires + 1), signature: signature, now: now) == .badSignature)
    }

    @Test("a URL signed again within the quarter hour comes from the recent ones and is the same; the next quarter gets a new expiry, signed anew")
    func recentSignedURLs() throws {
        let secret = try SecretKey("test-secret-key-that-is-long-enough-0123456789")
        let signer = MediaURLSigner(secretKey: secret, publicURL: URL(string: "https://photos.example.com")!)
        let fresh = { MediaURLSigner(secretKey: secret, publicURL: URL(string: "https://photos.example.com")!) }
        let key = try #require(BlobKey("AbCdEfGhIjKlMnOpQrStUvWxYz012-_9.jpg"))
        let now = Date(timeIntervalSince1970: 1_800_000_100)
        let first = signer.url(for: key, lifetime: .seconds(3600), now: now)
        #expect(signer.url(for: key, lifetime: .seconds(3600), now: now.addingTimeInterval(60)) == first)
        let later = now.addingTimeInterval(900)
        let next = signer.url(for: key, lifetime: .seconds(3600), now: later)
        #expect(next != first && next.contains("expires=1800005400&"), "\(next)")
        #expect(next == fresh().url(for: key, lifetime: .seconds(3600), now: later))
        // Another lifetime, another expiry: never the kept URL of the first.
        #expect(signer.url(for: key, lifetime: .seconds(7200), now: later) == fresh().url(for: key, lifetime: .seconds(7200), now: later))

        // Bounded: two generations of `capacity`; an entry of the older one is still found.
        let recent = RecentURLs(capacity: 3)
        for index in 0..<7 { recent.keep("url \(index)", for: "blob \(index)", expires: 900) }
        #expect(recent.count <= 6)
        #expect(recent.url(for: "blob 6", expires: 900) == "url 6")
        #expect(recent.url(for: "blob 6", expires: 1800) == nil)
        #expect(recent.url(for: "blob 0", expires: 900) == nil)
    }

    @Test("fingerprinted names put the hash before the extension")
    func fingerprintedNames() {
        #expect(StaticAssets.fingerprinted("/assets/css/app.css", hash: "0123") == "/assets/css/app.0123.css")
        #expect(StaticAssets.fingerprinted("/assets/a.b/c.min.js", hash: "ff") == "/assets/a.b/c.min.ff.js")
        #expect(StaticAssets.fingerprinted("/assets/.hidden", hash: "ff") == "/assets/.hidden.ff")
        #expect(StaticAssets.fingerprinted("/assets/LICENSE", hash: "ff") == "/assets/LICENSE.ff")
        let hash = "0123456789abcdef"
        for plain in ["/assets/css/app.css", "/assets/a.b/c.min.js", "/assets/.hidden", "/assets/LICENSE"] {
            #expect(StaticAssets.unfingerprinted(StaticAssets.fingerprinted(plain, hash: hash)) == plain)
        }
        #expect(StaticAssets.unfingerprinted("/assets/css/app.css") == nil)
        #expect(StaticAssets.unfingerprinted("/assets/css/app.0123.css") == nil)
        #expect(StaticAssets.unfingerprinted("/assets/\(hash).css") == nil)
    }

    @Test("the stylesheet pages link to is served from memory with a strong ETag and `immutable`; another version's hash gets today's bytes uncached")
    func fingerprintedStylesheet() async throws {
        try await withTestApp { app in
            let html = try await app.client.execute(uri: "/signin", method: .get).text
            let link = try #require(html.firstMatch(of: /<link rel="stylesheet" href="([^"]+)">/))
            let path = String(link.1)
            let file = try Data(contentsOf: URL(fileURLWithPath: "\(repositoryRoot)/Public/assets/css/app.css"))
            let hash = SHA256.hash(data: file)
            #expect(path == "/assets/css/app.\(hash.prefix(8).hexString).css")

            let css = try await app.client.execute(uri: path, method: .get)
            #expect(css.status == .ok)
            #expect(Data(buffer: css.body) == file)
            #expect(css.headers[.contentType] == "text/css; charset=utf-8")
            #expect(css.headers[.cacheControl] == "public, max-age=31536000, immutable")
            let eTag = try #require(css.headers[.eTag])
            #expect(eTag == "\"\(hash.prefix(12).hexString)\"")  // strong: no W/
            #expect(css.headers[.contentLength] == String(file.count))

            let revalidated = try await app.client.execute(uri: path, method: .get, headers: [.ifNoneMatch: eTag])
            #expect(revalidated.status == .notModified)
            #expect(revalidated.body.readableBytes == 0)

            // The plain path still works (bookmarks, old pages), cached for an hour only.
            let plain = try await app.client.execute(uri: "/assets/css/app.css", method: .get)
            #expect(plain.status == .ok)
            #expect(plain.headers[.cacheControl] == "public, max-age=3600")
            #expect(plain.headers[.eTag] == eTag)

            // Another version's fingerprint (a rolling deploy): today's bytes, never kept as that version's.
            let otherVersion = try await app.client.execute(uri: "/assets/css/app.0123456789abcdef.css", method: .get)
            #expect(otherVersion.status == .ok)
            #expect(Data(buffer: otherVersion.body) == file)
            #expect(otherVersion.headers[.cacheControl] == "no-cache")
            #expect(otherVersion.headers[.eTag] == eTag)

            for wrong in [
                "/assets/css/app.\(hash.prefix(7).hexString).css", "/assets/css/app..css", "/assets/css/app.0123456789ABCDEF.css",
                "/assets/css/nope.0123456789abcdef.css", "/assets/css/app.css.0123456789abcdef", "/assets/0123456789abcdef.css",
            ] {
                let missing = try await app.client.execute(uri: wrong, method: .get)
                #expect(missing.status == .notFound, "\(wrong)")
            }
        }
    }

    @Test("the upload form loads its script at the fingerprinted URL")
    func uploadScript() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail("assets"))
            let html = try await browser.get("/photos/new").text
            let script = try #require(html.firstMatch(of: /<script src="(\/assets\/js\/upload\.[0-9a-f]{16}\.js)" defer><\/script>/))
            let response = try await app.client.execute(uri: String(script.1), method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
        }
    }

    static func kind(_ value: TemplateValue) -> String {
        switch value {
        case .text: "text"
        case .number: "number"
        case .flag: "flag"
        case .values: "values"
        case .list: "list"
        case .reflected: "reflected"
        }
    }

    /// What a template would find by reflection: every stored property by its label, optionals unwrapped.
    static func expectSameAsMirror(_ value: some TemplateValues, sourceLocation: SourceLocation = #_sourceLocation) {
        let mirror = Mirror(reflecting: value)
        #expect(!mirror.children.isEmpty, sourceLocation: sourceLocation)
        for child in mirror.children {
            let label = child.label!
            let reflected: Any? = {
                let inner = Mirror(reflecting: child.value)
                guard inner.displayStyle == .optional else { return child.value }
                return inner.children.first?.value
            }()
            let answer = value.value(named: label)
            // The same kind as a cast would sort it into: a flag given as reflected would open
            // every section, a list given as text would not repeat.
            #expect(answer.map(Self.kind) == TemplateValue(any: child.value).map(Self.kind), "\(type(of: value)).\(label)", sourceLocation: sourceLocation)
            let named = answer?.value
            #expect((named == nil) == (reflected == nil), "\(type(of: value)).\(label)", sourceLocation: sourceLocation)
            // An object (a card's image) describes itself by its type's name only: the same object.
            let sameObject: Bool? = {
                guard let named, let reflected, type(of: named) is AnyClass else { return nil }
                return ObjectIdentifier(named as AnyObject) == ObjectIdentifier(reflected as AnyObject)
            }()
            if let sameObject {
                #expect(sameObject, "\(type(of: value)).\(label)", sourceLocation: sourceLocation)
            } else {
                #expect(named.map { String(describing: $0) } == reflected.map { String(describing: $0) }, "\(type(of: value)).\(label)",
                    sourceLocation: sourceLocation)
            }
        }
        #expect(value.value(named: "noSuchField") == nil, sourceLocation: sourceLocation)
    }

    @Test("the views pages render answer every field by name as reflection would, nil where it gives nil")
    func templateViews() throws {
        let key = try #require(BlobKey("AbCdEfGhIjKlMnOpQrStUvWxYz012-_9.jpg"))
        let renditions = RenditionName.allCases.map {
            PhotoRendition(name: $0, blobKey: key, contentType: "image/jpeg", width: 400, height: 300, byteSize: 10)
        }
        func photo(_ renditions: [PhotoRendition], title: String) -> Photo {
            Photo(id: 1, publicID: "p1", userID: 1, title: title, blobKey: key, contentType: "image/jpeg", byteSize: 10,
                createdAt: Date(timeIntervalSince1970: 1_800_000_000), width: 400, height: 300, takenAt: nil, takenAtIsLocalTime: false, trashedAt: nil, renditions: renditions)
        }
        let service = PhotoService.forViewTests()
        let words = Words(translations: CatalogueTests.translations, viewer: .default)
        let cards = [photo(renditions, title: "Sea"), photo([], title: "")].map { PhotoCard($0, photos: service, words: words) }
        for card in cards {
            Self.expectSameAsMirror(card)
            if let thumbnail = card.thumbnail { Self.expectSameAsMirror(thumbnail) }
        }
        let months = MonthGroup.grouping([photo(renditions, title: "Sea"), photo([], title: "")], words: words) {
            PhotoCard($0, photos: service, words: words)
        }
        for month in months { Self.expectSameAsMirror(month) }
        let selection = SelectionBar(albums: [.init(id: "a1", title: "Holidays")], albumID: nil)
        for bar in [selection, SelectionBar(albums: [], albumID: "a1")] { Self.expectSameAsMirror(bar) }
        Self.expectSameAsMirror(selection.albums[0])
        for older in [nil, "/gallery?after=3_1"] {
            Self.expectSameAsMirror(
                PhotoPagesController.GalleryPage(firstName: "Ada", months: months, isEmpty: false, olderPageURL: older, isFirstPage: true, selection: selection)
            )
        }
        for page in [
            AlbumPagesController.AlbumPage(
                id: "a1", title: "Sea", description: "", count: "2 photos", months: months, isEmpty: false, olderPageURL: nil, isFirstPage: true,
                selection: selection, share: ShareForm(album: "a1", words: words), links: [], hasLinks: false, backURL: "/albums/a1",
                editURL: "/albums/a1/edit", deleteURL: "/albums/a1/delete", error: nil, formTitle: "Sea (edited)", formDescription: "About the sea"
            ),
            AlbumPagesController.AlbumPage(
                id: "a2", title: "", description: "d", count: "0", months: [], isEmpty: true, olderPageURL: "/albums/a2?after=1_1", isFirstPage: false,
                selection: selection, share: ShareForm(album: "a2", words: words), links: [], hasLinks: false, backURL: "/albums/a2",
                editURL: "/albums/a2/edit", deleteURL: "/albums/a2/delete", error: "Too long", formTitle: "New", formDescription: "d2"
            ),
        ] {
            Self.expectSameAsMirror(page)
        }
        for preview in [SharedPagesController.Preview(title: "Sea", imageURL: "/s/t/p/thumb", url: "http://x/s/t"), .init(title: "", imageURL: nil, url: "u")] {
            Self.expectSameAsMirror(preview)
            Self.expectSameAsMirror(
                SharedPagesController.SharedPage(
                    title: "Sea", description: "", isAlbum: preview.imageURL != nil, months: months, photo: preview.imageURL == nil ? cards[0] : nil,
                    olderPageURL: nil, downloadURL: preview.imageURL.map { _ in "/s/t/download" }, preview: preview
                )
            )
        }
        let user = User(row: (1, "ada@example.com", nil, "Ada Lovelace", "admin", false, Date(), false, "de", nil, nil))
        Self.expectSameAsMirror(PageRenderer.UserView(user))
        Self.expectSameAsMirror(AssetURLs.plain)
        for (viewer, notice) in [(PageRenderer.UserView(user), "Saved"), (nil, nil)] as [(PageRenderer.UserView?, String?)] {
            Self.expectSameAsMirror(
                PageRenderer.Page(
                    title: "T", assets: .plain, user: viewer, csrfToken: "c", notice: notice, page: cards[0], chrome: PageRenderer.Chrome(viewer: .default, translations: CatalogueTests.translations)
                )
            )
            Self.expectSameAsMirror(PageRenderer.Chrome(viewer: .default, translations: CatalogueTests.translations))
        }
    }

    @Test("HTML escaping on bytes escapes the same scalars as escaping scalar by scalar")
    func htmlEscaping() {
        func scalarWise(_ text: String) -> String {
            var escaped = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "<": escaped += "&lt;"
                case ">": escaped += "&gt;"
                case "&": escaped += "&amp;"
                case "\"": escaped += "&quot;"
                case "'": escaped += "&#39;"
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped
        }
        var generator = SystemRandomNumberGenerator()
        // Every ASCII character too: a wrong bit in the escaper's mask would escape one of them.
        let pieces = ["é", "\u{301}", "😀", "\"\u{301}", "&amp;"] + (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0...10, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            // Bytes, not Strings: `==` on Strings would take canonically equivalent text as equal.
            #expect(Array(ScalarHTMLEscaping().escapeText(text).utf8) == Array(scalarWise(text).utf8), "\(Array(text.unicodeScalars))")
        }
    }
}

extension PhotoService {
    /// A service whose only use is signing rendition URLs (nothing here queries or stores).
    static func forViewTests() -> PhotoService {
        let logger = Logger(label: "view-tests")
        let signer = MediaURLSigner(
            secretKey: try! SecretKey("test-secret-key-that-is-long-enough-0123456789"),
            publicURL: URL(string: "http://localhost")!
        )
        let blobs = try! FileBlobStore(root: temporaryBlobDirectory(), signer: signer)
        let client = PostgresClient(configuration: .init(host: "localhost", username: "unused", password: nil, database: nil, tls: .disable))
        return PhotoService(
            photos: PhotoRepository(client: client, logger: logger),
            blobs: blobs,
            limits: UploadLimits(),
            urlLifetime: .seconds(3600),
            trashDays: 30,
            audit: AuditRepository(client: client, logger: logger),
            renditions: RenditionMaker(blobs: blobs, maxPixels: 1000, logger: logger),
            blobDeletions: BlobDeletions(queue: BlobDeletionRepository(client: client, logger: logger), blobs: blobs, logger: logger),
            logger: logger
        )
    }
}
