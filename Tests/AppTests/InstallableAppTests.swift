import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import App

/// The installed app's server side: the manifest Chromium reads to offer "Install" and the share
/// sheet, the service worker's script and headers, the offline page it keeps, and a share that
/// reaches the server because no worker took it (nothing uploaded, nothing lost, no 500).
@Suite("Installable app")
struct InstallableAppTests {
    @Test("the manifest is application/manifest+json with Selfie's name, start, colours, icons and share target")
    func manifest() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            let response = try await browser.get("/manifest.webmanifest")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/manifest+json")
            let manifest = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            #expect(manifest["name"] as? String == "Selfie")
            #expect(manifest["short_name"] as? String == "Selfie")
            #expect(manifest["start_url"] as? String == "/gallery")
            #expect(manifest["scope"] as? String == "/")
            #expect(manifest["display"] as? String == "standalone")
            #expect(manifest["lang"] as? String == "en")
            #expect(manifest["description"] as? String == "Your photos, private, on any device.")

            // The colours are the stylesheet's: the header's (--paper) and the page's (--wash).
            let css = try String(contentsOfFile: "\(repositoryRoot)/Public/assets/css/app.css", encoding: .utf8)
            let paper = try #require(css.firstCapture(of: #"--paper: light-dark\((#[0-9a-f]{6}),"#))
            let wash = try #require(css.firstCapture(of: #"--wash: light-dark\((#[0-9a-f]{6}),"#))
            #expect(manifest["theme_color"] as? String == paper)
            #expect(manifest["background_color"] as? String == wash)

            // Each icon is a PNG of the size it claims; 192 and 512 exist as "any" and "maskable".
            let icons = try #require(manifest["icons"] as? [[String: String]])
            var found: Set<String> = []
            for icon in icons {
                let src = try #require(icon["src"])
                let image = try await browser.get(src)
                #expect(image.status == .ok, "\(src)")
                #expect(image.headers[.contentType] == "image/png")
                #expect(icon["type"] == "image/png")
                let bytes = Array(image.body.readableBytesView)
                #expect(bytes.count > 24 && bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
                let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
                let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
                #expect(icon["sizes"] == "\(width)x\(height)", "\(src)")
                found.insert("\(icon["sizes"] ?? "") \(icon["purpose"] ?? "")")
            }
            #expect(found.isSuperset(of: ["192x192 any", "512x512 any", "192x192 maskable", "512x512 maskable"]), "\(found)")

            let target = try #require(manifest["share_target"] as? [String: Any])
            #expect(target["action"] as? String == "/share-target")
            #expect(target["method"] as? String == "POST")
            #expect(target["enctype"] as? String == "multipart/form-data")
            let files = try #require((target["params"] as? [String: Any])?["files"] as? [[String: Any]])
            #expect(files.count == 1 && files.first?["name"] as? String == "photos")
            let accept = files.first?["accept"] as? [String] ?? []
            #expect(accept.contains("image/*") && accept.contains("image/heic") && accept.contains(".heic"), "\(accept)")
        }
    }

    @Test("the manifest speaks the browser's language; every page links it with a theme colour")
    func manifestLanguageAndLinks() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            browser.extraHeaders[.acceptLanguage] = "de-DE, de;q=0.9"
            let manifest = try #require(
                try JSONSerialization.jsonObject(with: Data(buffer: try await browser.get("/manifest.webmanifest").body)) as? [String: Any]
            )
            #expect(manifest["lang"] as? String == "de")
            #expect(manifest["description"] as? String == "Deine Fotos, privat, auf jedem Gerät.")
            #expect(manifest["name"] as? String == "Selfie")

            for page in ["/signin", "/signup"] {
                let html = try await browser.get(page).text
                #expect(html.contains(#"<link rel="manifest" href="/manifest.webmanifest">"#), "\(page)")
                #expect(html.contains(##"<meta name="theme-color" content="#ffffff" media="(prefers-color-scheme: light)">"##), "\(page)")
                #expect(html.firstCapture(of: #"<script src="(/assets/js/install\.[0-9a-f]{16}\.js)" defer>"#) != nil, "\(page)")
            }
        }
    }

    @Test("the service worker: JavaScript, never cached without asking, its settings keep only static files")
    func serviceWorker() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            let response = try await browser.get("/sw.js")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(response.headers[.cacheControl] == "no-cache")
            #expect(response.headers[.contentSecurityPolicy] == "default-src 'self'")
            // At the root, its default scope is the whole site: no Service-Worker-Allowed needed.
            #expect(response.headers[HTTPField.Name("Service-Worker-Allowed")!] == nil)
            let eTag = try #require(response.headers[.eTag])
            let again = try await app.client.execute(uri: "/sw.js", method: .get, headers: [.ifNoneMatch: eTag])
            #expect(again.status == .notModified)

            // The first line: `const SELFIE = {…};`, then the worker's source.
            let script = response.text
            let firstLine = try #require(script.split(separator: "\n", maxSplits: 1).first)
            let json = try #require(String(firstLine).firstCapture(of: #"^const SELFIE = (\{.*\});"#))
            let settings = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            #expect(settings["offline"] as? String == "/offline")
            #expect(settings["shareTarget"] as? String == "/share-target")
            #expect(settings["sharedFilesField"] as? String == "photos")
            #expect(settings["sharedPhotosPage"] as? String == "/photos/new?shared=1")
            #expect(script.contains(#"self.addEventListener("fetch""#))

            // It keeps the files pages link to, at the URLs they use, and nothing else.
            let precache = try #require(settings["precache"] as? [String])
            let signIn = try await browser.get("/signin").text
            let stylesheet = try #require(signIn.firstCapture(of: #"<link rel="stylesheet" href="([^"]+)">"#))
            #expect(precache.contains(stylesheet))
            #expect(precache.contains { $0.hasPrefix("/assets/icons/maskable-512.") })
            for url in precache {
                #expect(url.hasPrefix("/assets/") && url.firstCapture(of: #"\.([0-9a-f]{16})(\.[a-z0-9]+)?$"#) != nil, "\(url) is a fingerprinted static file")
                let file = try await browser.get(url)
                #expect(file.status == .ok && file.headers[.cacheControl] == StaticAssets.fingerprintedCaching, "\(url)")
            }
            #expect(!precache.contains { $0.contains("service-worker") }, "the worker's source is not kept as a file")
        }
    }

    @Test("the offline page holds nobody's data, even asked for by a signed-in browser, and speaks its language")
    func offlinePage() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            let email = uniqueEmail("offline")
            try await browser.signUp(name: "Olive Offline", email: email)
            #expect(try await browser.get("/account").status == .ok, "signed in")
            let response = try await browser.get("/offline")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            #expect(response.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            #expect(response.headers[values: .setCookie].isEmpty)
            let html = response.text
            #expect(html.contains("<h1>You are offline</h1>"))
            #expect(html.contains(#"<a href="" class="primary-link">Try again</a>"#))
            #expect(!html.contains("Olive") && !html.contains(email) && !html.contains("_csrf") && !html.contains("<form"))

            browser.setCookie(ViewerPreferences.languageCookie, "es")
            #expect(try await browser.get("/offline").text.contains("<h1>Sin conexión</h1>"))
        }
    }

    @Test("a share that reaches the server without the worker uploads nothing and leads to the upload form, through sign-in")
    func shareWithoutWorker() async throws {
        try await withTestApp { app in
            let photo = Self.share([TestImage.jpeg(seed: 7), TestImage.jpeg(seed: 8)])
            let share = photo.body

            // Signed out: to the upload form, which sends the visitor to sign in and back to it.
            let visitor = app.browser()
            let answer = try await visitor.send("/share-target", method: .post, body: share, contentType: photo.contentType)
            #expect(answer.status == .seeOther)
            #expect(answer.location == "/photos/new?notice=share-again")
            let form = try await visitor.get("/photos/new?notice=share-again")
            #expect(form.status == .seeOther)
            #expect(form.location == "/signin?next=%2Fphotos%2Fnew%3Fnotice%3Dshare-again")

            // Signed in, with the session cookie but no CSRF token (a share sheet has none): the
            // same answer, and no photo.
            let email = uniqueEmail("sharer")
            try await visitor.signUp(email: email)
            let signedIn = try await visitor.send("/share-target", method: .post, body: share, contentType: photo.contentType)
            #expect(signedIn.status == .seeOther)
            #expect(signedIn.location == "/photos/new?notice=share-again")
            let page = try await visitor.get("/photos/new?notice=share-again")
            #expect(page.status == .ok)
            #expect(page.text.contains("Your photos did not reach Selfie. Choose them here once more, then press Upload."))
            #expect(page.text.contains(#"id="upload-form""#))
            #expect(try await app.photoCount() == 0)

            // The upload form's own target still wants its token.
            let straight = try await visitor.send("/photos", method: .post, body: share, contentType: photo.contentType)
            #expect(straight.status == .forbidden)
            #expect(try await app.photoCount() == 0)
        }
    }

    /// What a share sheet posts to the manifest's `share_target`: the files in `photos`, no token.
    static func share(_ images: [[UInt8]]) -> (contentType: String, body: ByteBuffer) {
        let boundary = "----WebKitFormBoundary\(UUID().uuidString.prefix(16))"
        var body = ByteBuffer()
        for (index, image) in images.enumerated() {
            body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"photos\"; filename=\"IMG_\(index).jpg\"\r\n")
            body.writeString("Content-Type: image/jpeg\r\n\r\n")
            body.writeBytes(image)
            body.writeString("\r\n")
        }
        body.writeString("--\(boundary)--\r\n")
        return ("multipart/form-data; boundary=\(boundary)", body)
    }

    @Test("the worker's way back: after signing in, the upload form with ?shared=1 opens again")
    func signInReturnsToSharedPhotos() async throws {
        try await withTestApp { app in
            let email = uniqueEmail("returning")
            try await app.browser().signUp(email: email)
            let browser = app.browser()
            let bounced = try await browser.get(InstallableApp.sharedPhotosPage)
            #expect(bounced.status == .seeOther)
            let signInPage = try #require(bounced.location)
            #expect(signInPage == "/signin?next=%2Fphotos%2Fnew%3Fshared%3D1")
            let signedIn = try await browser.signIn(email: email, next: "/photos/new?shared=1")
            #expect(signedIn.status == .seeOther)
            #expect(signedIn.location == "/photos/new?shared=1")
            let form = try await browser.get("/photos/new?shared=1")
            #expect(form.status == .ok)
            #expect(form.text.firstCapture(of: #"<script src="(/assets/js/shared-photos\.[0-9a-f]{16}\.js)" defer>"#) != nil)
        }
    }
}
