@testable import App
@testable import SelfieCore
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("AESCrypt (compatible with the iOS class and the Ruby gem)")
struct AESCryptTests {
    /// Computed independently with `openssl enc -aes-256-cbc -K $(printf PASSWORD | sha256sum) -iv 0…0 | base64`.
    static let vectors: [(appPassword: String, plaintext: String, ciphertext: String)] = [
        ("test-app-password", "correct horse battery", "z/xcgBh3C1T/AgVpFgqda8fIK3CqDvnZW/3qDCa4n18="),
        ("8a20f8211d998d63df0f17b0b9d69c8d", "pässwörd ✓", "lNPgqWVoss92MPrlnZ3hjA=="),
        ("test-app-password", "exactly16bytes!!", "QcsiF8sbXUcS4wUzV1/NG8DwPGRKP4hFEWkM+k+ORUA="),
    ]

    @Test("known answers, both ways")
    func knownAnswers() throws {
        for vector in Self.vectors {
            let key = AESCrypt.key(forPassword: vector.appPassword)
            #expect(try AESCrypt.encrypt(vector.plaintext, key: key) == vector.ciphertext)
            #expect(try AESCrypt.decrypt(vector.ciphertext, key: key) == vector.plaintext)
        }
    }

    @Test("Ruby's line-wrapped base64 and a query string's spaces are tolerated")
    func lenientBase64() throws {
        let key = AESCrypt.key(forPassword: "test-app-password")
        #expect(try AESCrypt.decrypt("z/xcgBh3C1T/AgVpFgqda8fIK3CqDvnZ\nW/3qDCa4n18=\n", key: key) == "correct horse battery")
        #expect(try AESCrypt.decrypt("QcsiF8sbXUcS4wUzV1/NG8DwPGRKP4hFEWkM k ORUA=", key: key) == "exactly16bytes!!")
    }

    @Test("bad base64, a wrong length, bad padding and a wrong key are refused", arguments: [
        "not base64 at all!",
        "AAAA",
        "z/xcgBh3C1T/AgVpFgqda8fIK3CqDvnZW/3qDCa4n1==",
        "",
    ])
    func undecryptable(ciphertext: String) {
        #expect(throws: AESCrypt.Undecryptable.self) {
            try AESCrypt.decrypt(ciphertext, key: AESCrypt.key(forPassword: "test-app-password"))
        }
    }

    @Test("a wrong key does not decrypt")
    func wrongKey() {
        #expect(throws: AESCrypt.Undecryptable.self) {
            try AESCrypt.decrypt("z/xcgBh3C1T/AgVpFgqda8fIK3CqDvnZW/3qDCa4n18=", key: AESCrypt.key(forPassword: "another app"))
        }
    }
}

@Suite("The API as the iOS app uses it")
struct APIReplayTests {
    @Test("signup: the app's exact request, answered with first/last name and email only")
    func signUp() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let response = try await app.api.signUp(name: "Ada King Lovelace", email: email)
            #expect(response.status == .ok)
            let json = try response.json()
            #expect(json as NSDictionary == ["first_name": "Ada", "last_name": "King Lovelace", "email": email] as NSDictionary)
            // the account works in the browser too
            #expect(try await app.browser().signIn(email: email).status == .seeOther)
        }
    }

    @Test("signin: every value a string, a ≥128-bit token, expiry in yyyy-MM-dd'T'HH:mm:ss.SSS'Z' about a day ahead")
    func signIn() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            try await app.api.signUp(name: "Grace", email: email)
            let response = try await app.api.signIn(email: email)
            #expect(response.status == .ok)
            let json = try response.json()
            #expect(Set(json.keys) == ["first_name", "last_name", "email", "api_authtoken", "authtoken_expiry"])
            #expect(json.values.allSatisfy { $0 is String }, "the app casts every value to NSString")
            #expect(json["first_name"] as? String == "Grace")
            #expect(json["last_name"] as? String == "")
            let token = try #require(json["api_authtoken"] as? String)
            #expect(token.count >= 22)
            let expiry = try #require(json["authtoken_expiry"] as? String)
            #expect(expiry.firstCapture(of: #"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)$"#) != nil)
            let parsed = try #require(try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(expiry))
            #expect(abs(parsed.timeIntervalSinceNow - 86400) < 120)
        }
    }

    @Test("image URLs work as long as the token that listed them (the app lists once per sign-in); the browser's pages keep the hour")
    func imageURLsLastAsLongAsTheToken() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            try await app.api.signUp(name: "Grace", email: email)
            let signIn = try await app.api.signIn(email: email).json()
            let token = try #require(signIn["api_authtoken"] as? String)
            let tokenExpiry = try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(try #require(signIn["authtoken_expiry"] as? String))
            try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(size: 20_000, seed: 7), title: "Kept")
            let listed = try #require(try await app.api.getPhotos(token: token).jsonArray().first?["image_url"] as? String)
            #expect(try Self.expiry(of: listed) >= tokenExpiry, "the image still loads while the app's token works")
            #expect(try await app.fetchImage(listed).status == .ok)

            let browser = app.browser()
            #expect(try await browser.signIn(email: email).status == .seeOther)
            let shown = try #require(try await browser.galleryPhotos().first?.imageURL)
            #expect(try Self.expiry(of: shown).timeIntervalSinceNow <= 3600 + 900, "a page's images keep their hour")
        }
    }

    /// When a signed image URL stops working: its `expires`.
    static func expiry(of url: String) throws -> Date {
        let expires = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "expires" }?.value.flatMap(Double.init))
        return Date(timeIntervalSince1970: expires)
    }

    @Test("with tokens that live a month, image URLs still expire within a week (an S3 presigned URL's longest)")
    func imageURLsAtMostAWeek() async throws {
        try await withTestApp(configure: { $0.tokenLifetime = .seconds(30 * 86400) }) { app in
            let token = try await app.api.signedInUser()
            try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(size: 20_000, seed: 8), title: "Month")
            let listed = try #require(try await app.api.getPhotos(token: token).jsonArray().first?["image_url"] as? String)
            let left = try Self.expiry(of: listed).timeIntervalSinceNow
            #expect(left > 7 * 86400 - 120 && left <= 7 * 86400 + 900, "a week, rounded up to the quarter hour (\(left) s)")
        }
    }

    @Test("the token works as `Token token=…`, `Token token=\"…\"` and `Bearer …`")
    func tokenForms() async throws {
        try await withTestApp { app in
            let token = try await app.api.signedInUser()
            for header in ["Token token=\(token)", "Token token=\"\(token)\"", "Bearer \(token)", "token token=\(token)"] {
                let response = try await app.api.send(.get, "/api/get_photos", authorization: header)
                #expect(response.status == .ok, "\(header)")
                #expect(response.text == "[]")
            }
        }
    }

    @Test("the Authorization header's token: each form, spaces and tabs around, options after a comma; anything else is no token")
    func tokenParsing() {
        let read = APITokenMiddleware.token(fromAuthorization:)
        #expect(read("Bearer abc") == "abc")
        #expect(read("BEARER abc") == "abc")
        #expect(read(" \tToken token=abc \t") == "abc")
        #expect(read("Token   token=\"abc\"") == "abc")
        #expect(read("TOKEN TOKEN=abc, nonce=\"xyz\"") == "abc")
        #expect(read("Token token=\"abc\" , nonce=1") == "abc")
        #expect(read("Bearer  abc ") == "abc")
        #expect(read("Token token=é1") == "é1")
        #expect(read("Token token=" + String(repeating: "a", count: 512))?.count == 512)
        for refused in [nil, "", "Bearer", "Bearer ", "Bearer \"\"", "Basic abc", "Token abc", "Token token=", "Token token=\"\"",
                        "Token token=" + String(repeating: "a", count: 513), "Bearerabc", "Tokentoken=abc"] {
            #expect(read(refused) == nil, "\(refused ?? "nil")")
        }
    }

    @Test("upload (the app's multipart body), list, fetch the image with a plain GET, delete")
    func photos() async throws {
        try await withTestApp { app in
            let token = try await app.api.signedInUser()
            let first = TestImage.jpeg(size: 40_000, seed: 1)
            let upload = try await app.api.uploadPhoto(token: token, image: first, title: "First")
            #expect(upload.status == .ok)
            let photo = try upload.json()
            #expect(Set(photo.keys) == ["name", "title", "random_id", "image_url", "taken_at"])
            #expect(photo["title"] as? String == "First")
            let id = try #require(photo["random_id"] as? String)
            #expect(id.count >= 20)
            let url = try #require(photo["image_url"] as? String)
            #expect(url.hasPrefix("http://localhost/media/"), "absolute, from PUBLIC_URL")
            // the display copy (JPEG, which the app decodes), never the upload itself
            let image = try await app.fetchImage(url)
            #expect(image.status == .ok)
            #expect(image.headers[.contentType] == "image/jpeg")
            #expect(Array(image.body.readableBytesView.prefix(3)) == [0xFF, 0xD8, 0xFF])
            #expect(Array(image.body.readableBytesView) != first)

            try await app.api.uploadPhoto(token: token, image: TestImage.png(), title: "")
            let list = try await app.api.getPhotos(token: token).jsonArray()
            #expect(list.map { $0["title"] as? String } == ["First", ""], "oldest first: the app reverses it")
            #expect(list.allSatisfy { Set($0.keys) == ["name", "title", "random_id", "image_url", "taken_at"] })

            let deleted = try await app.api.deletePhoto(token: token, id: id)
            #expect(deleted.status == .ok)
            #expect(try deleted.json() as NSDictionary == ["status": 200, "message": "Image deleted"] as NSDictionary)
            #expect(try await app.fetchImage(url).status == .notFound)
            #expect(try await app.api.getPhotos(token: token).jsonArray().count == 1)
        }
    }

    @Test("get_token needs the email and the password (query or JSON body)")
    func getToken() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            try await app.api.signUp(email: email)
            let emailOnly = try await app.api.send(.get, "/api/get_token?email=\(email)", authorization: app.api.basicAuthorization)
            #expect(emailOnly.status == .badRequest)
            #expect(try emailOnly.apiError().message == "Missing field: password")

            let encrypted = app.api.encrypt("correct horse battery").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let byQuery = try await app.api.send(
                .get,
                "/api/get_token?email=\(email.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&password=\(encrypted)",
                authorization: app.api.basicAuthorization
            )
            #expect(byQuery.status == .ok)
            #expect(Set(try byQuery.json().keys) == ["api_authtoken", "authtoken_expiry"])

            let byBody = try await app.api.send(
                .get,
                "/api/get_token",
                body: "{\"email\":\"\(email)\",\"password\":\"\(app.api.encrypt("correct horse battery"))\"}",
                authorization: app.api.basicAuthorization
            )
            #expect(byBody.status == .ok)
            let token = try #require(try byBody.json()["api_authtoken"] as? String)
            #expect(try await app.api.getPhotos(token: token).status == .ok)

            let wrong = try await app.api.send(
                .get,
                "/api/get_token",
                body: "{\"email\":\"\(email)\",\"password\":\"\(app.api.encrypt("wrong password"))\"}",
                authorization: app.api.basicAuthorization
            )
            #expect(wrong.status == .unauthorized)
        }
    }

    @Test("clear_token ends the token")
    func clearToken() async throws {
        try await withTestApp { app in
            let token = try await app.api.signedInUser()
            let response = try await app.api.send(.get, "/api/clear_token", authorization: "Token token=\(token)")
            #expect(try response.json() as NSDictionary == ["status": 200, "message": "Token cleared"] as NSDictionary)
            #expect(try await app.api.getPhotos(token: token).status == .unauthorized)
        }
    }

    @Test("reset_password: new token, every other token and web session ends, the new password works")
    func resetPassword() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let token = try await app.api.signedInUser(email: email, password: "first password 1")
            let otherDevice = try #require(try await app.api.signIn(email: email, password: "first password 1").json()["api_authtoken"] as? String)
            let browser = app.browser()
            try await browser.signIn(email: email, password: "first password 1")

            let response = try await app.api.send(
                .post,
                "/api/reset_password",
                body: "{\"old_password\":\"\(app.api.encrypt("first password 1"))\",\"new_password\":\"\(app.api.encrypt("second password 2"))\"}",
                authorization: "Token token=\(token)"
            )
            #expect(response.status == .ok)
            let json = try response.json()
            #expect(json["email"] as? String == email)
            let newToken = try #require(json["api_authtoken"] as? String)
            #expect(try await app.api.getPhotos(token: newToken).status == .ok)
            #expect(try await app.api.getPhotos(token: token).status == .unauthorized)
            #expect(try await app.api.getPhotos(token: otherDevice).status == .unauthorized)
            #expect(try await browser.get("/account").status == .seeOther, "web sessions end too")
            #expect(try await app.api.signIn(email: email, password: "first password 1").status == .unauthorized)
            #expect(try await app.api.signIn(email: email, password: "second password 2").status == .ok)

            let wrongOld = try await app.api.send(
                .post,
                "/api/reset_password",
                body: "{\"old_password\":\"\(app.api.encrypt("nope nope nope"))\",\"new_password\":\"\(app.api.encrypt("third password 3"))\"}",
                authorization: "Token token=\(newToken)"
            )
            #expect(wrongOld.status == .unauthorized)
            #expect(try wrongOld.apiError().message == "The old password is not correct.")
        }
    }

    @Test("a web password change ends the user's API tokens")
    func webPasswordChangeEndsTokens() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let token = try await app.api.signedInUser(email: email)
            let browser = app.browser()
            try await browser.signIn(email: email)
            try await browser.submit(
                "/account/password",
                from: "/account",
                [("current_password", "correct horse battery"), ("new_password", "second password 2"), ("new_password_confirmation", "second password 2")]
            )
            #expect(try await app.api.getPhotos(token: token).status == .unauthorized)
        }
    }
}

@Suite("API failures: clear JSON errors, never a 500")
struct APIFailureTests {
    @Test("a missing or wrong app key is a 401 JSON error with WWW-Authenticate")
    func appKey() async throws {
        try await withTestApp { app in
            var wrong = app.api
            wrong.appKeyPassword = "guessed"
            var unknown = app.api
            unknown.appKeyName = "someone-else"
            for authorization in [nil, wrong.basicAuthorization, unknown.basicAuthorization, "Basic !!!", "Token token=abc"] as [String?] {
                let response = try await app.api.send(.post, "/api/signin", body: "{}", authorization: authorization)
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == #"Basic realm="Selfie API""#)
                #expect(try response.apiError() == (401, "This app is not allowed to use the API: check the app key."))
            }
        }
    }

    @Test("bad, expired, revoked and disabled-user tokens are 401")
    func badTokens() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let token = try await app.api.signedInUser(email: email)
            for header in [nil, "Token token=not-a-real-token", "Token token=", "Basic abc", "Bearer"] as [String?] {
                let response = try await app.api.send(.get, "/api/get_photos", authorization: header)
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == #"Token realm="Selfie API""#)
                #expect(try response.apiError().status == 401)
            }
            try await app.db { try await $0.query("UPDATE api_tokens SET expires_at = now() - interval '1 second'") }
            #expect(try await app.api.getPhotos(token: token).status == .unauthorized)

            let second = try #require(try await app.api.signIn(email: email).json()["api_authtoken"] as? String)
            try await app.db { try await $0.query("UPDATE api_tokens SET revoked_at = now()") }
            #expect(try await app.api.getPhotos(token: second).status == .unauthorized)

            let third = try #require(try await app.api.signIn(email: email).json()["api_authtoken"] as? String)
            try await app.db { try await $0.query("UPDATE users SET disabled = true") }
            #expect(try await app.api.getPhotos(token: third).status == .unauthorized)
            #expect(try await app.api.signIn(email: email).status == .unauthorized)
        }
    }

    @Test("malformed JSON and missing fields are 400 with a message saying what is wrong")
    func malformed() async throws {
        try await withTestApp { app in
            let cases: [(String, String)] = [
                ("{\"email\":", "The request body must be a JSON object."),
                ("[1,2,3]", "The request body must be a JSON object."),
                ("{\"email\":\"a@example.com\"}", "Missing field: password"),
                ("{\"password\":\"abc\"}", "Missing field: email"),
                ("{\"email\":42,\"password\":\"abc\"}", "The field email must be a string."),
                ("{\"email\":\"\",\"password\":\"abc\"}", "Missing field: email"),
            ]
            for (body, message) in cases {
                let response = try await app.api.send(.post, "/api/signin", body: body, authorization: app.api.basicAuthorization)
                #expect(response.status == .badRequest, "\(body)")
                #expect(try response.apiError() == (400, message))
            }
            let signup = try await app.api.send(.post, "/api/signup", body: "{\"email\":\"a@b.co\",\"password\":\"x\"}", authorization: app.api.basicAuthorization)
            #expect(try signup.apiError() == (400, "Missing field: full_name"))
        }
    }

    @Test("undecryptable passwords (bad base64, bad padding, wrong key) are 400", arguments: [
        "not base64!",
        "z/xcgBh3C1T/AgVpFgqda8fIK3CqDvnZW/3qDCa4n1==",
        "lNPgqWVoss92MPrlnZ3hjA==",
    ])
    func undecryptable(ciphertext: String) async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            try await app.api.signUp(email: email)
            let response = try await app.api.send(
                .post,
                "/api/signin",
                body: "{\"email\":\"\(email)\",\"password\":\"\(ciphertext)\"}",
                authorization: app.api.basicAuthorization
            )
            #expect(response.status == .badRequest)
            #expect(try response.apiError().message.hasPrefix("The password could not be decrypted."))
        }
    }

    @Test("signup: a duplicate email is 409, invalid values 422, nothing created")
    func signUpErrors() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            #expect(try await app.api.signUp(email: email).status == .ok)
            let duplicate = try await app.api.signUp(name: "Someone", email: email.uppercased())
            #expect(try duplicate.apiError() == (409, "An account with this email already exists."))
            let invalid = try await app.api.signUp(name: "X", email: "not-an-email", password: "short")
            #expect(invalid.status == .unprocessableContent)
            let message = try invalid.apiError().message
            #expect(message.contains("email: Enter an email address") && message.contains("password: Use at least 8 characters."))
            let users: Int = try await app.scalar("SELECT count(*)::int FROM users")
            #expect(users == 1)
        }
    }

    @Test("signin: an unknown email and a wrong password get the same answer")
    func noEnumeration() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            try await app.api.signUp(email: email)
            let wrongPassword = try await app.api.signIn(email: email, password: "wrong password")
            let unknownEmail = try await app.api.signIn(email: uniqueEmail("nobody"), password: "wrong password")
            #expect(wrongPassword.status == .unauthorized)
            #expect(try wrongPassword.apiError() == (401, "Invalid email or password."))
            #expect(try unknownEmail.apiError() == (401, "Invalid email or password."))
        }
    }

    @Test("another user's photo id: delete is 404 and the photo stays")
    func otherUsersPhoto() async throws {
        try await withTestApp { app in
            let owner = try await app.api.signedInUser()
            let id = try #require(try await app.api.uploadPhoto(token: owner, image: TestImage.jpeg(), title: "mine").json()["random_id"] as? String)
            let other = try await app.api.signedInUser()
            let response = try await app.api.deletePhoto(token: other, id: id)
            #expect(try response.apiError() == (404, "Photo not found"))
            #expect(try await app.api.getPhotos(token: other).jsonArray().isEmpty)
            #expect(try await app.api.getPhotos(token: owner).jsonArray().count == 1)
            #expect(try await app.api.deletePhoto(token: owner, id: "no-such-photo-id-00000").status == .notFound)
            let missing = try await app.api.send(.delete, "/api/delete_photo", body: "{}", authorization: "Token token=\(owner)")
            #expect(try missing.apiError() == (400, "Missing field: photo_id"))
        }
    }

    @Test("delete_photo sent again (the app retrying after a lost answer): the same answer, the photo in the trash once; never for another user's photo, nor once the trash is emptied")
    func deleteSentAgain() async throws {
        try await withTestApp(configure: { $0.trashDays = 30 }) { app in
            let owner = try await app.api.signedInUser()
            let id = try #require(try await app.api.uploadPhoto(token: owner, image: TestImage.jpeg(), title: "twice").json()["random_id"] as? String)
            for _ in 0..<2 {
                let answer = try await app.api.deletePhoto(token: owner, id: id)
                #expect(answer.status == .ok)
                #expect(try answer.json()["message"] as? String == "Image deleted")
            }
            #expect(try await app.api.getPhotos(token: owner).jsonArray().isEmpty)
            let trashed: Int = try await app.scalar("SELECT count(*)::int FROM photos WHERE public_id = \(id) AND trashed_at IS NOT NULL")
            #expect(trashed == 1)
            let recorded: Int = try await app.scalar("SELECT count(*)::int FROM audit_events WHERE event = 'photo.trashed'")
            #expect(recorded == 1, "the second request changed nothing, so it recorded nothing")

            let other = try await app.api.signedInUser()
            #expect(try await app.api.deletePhoto(token: other, id: id).apiError() == (404, "Photo not found"), "another user's photo in the trash is still no photo of theirs")

            try await app.db { _ = try await $0.query("DELETE FROM photos WHERE public_id = \(id)") }
            #expect(try await app.api.deletePhoto(token: owner, id: id).apiError() == (404, "Photo not found"))
        }
    }

    @Test("a non-image upload is 415, an oversize one 413 (answered quickly), one with two captions 400; nothing stored; server healthy")
    func badUploads() async throws {
        try await withTestApp(configure: { $0.maxUploadBytes = 200 * 1024 }) { app in
            let token = try await app.api.signedInUser()
            let text = try await app.api.uploadPhoto(token: token, image: TestImage.text(), title: "not a photo")
            #expect(try text.apiError() == (415, "Only JPEG, PNG, GIF, WebP and HEIC photos can be uploaded."))

            let started = ContinuousClock.now
            let big = try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(size: 4 * 1024 * 1024), title: "")
            #expect(try big.apiError() == (413, "This photo is too large: the limit is 200 KB."))
            #expect(ContinuousClock.now - started < .seconds(5))

            let json = try await app.api.send(.post, "/api/upload_photo", body: "{}", authorization: "Token token=\(token)")
            #expect(try json.apiError().status == 415)

            // A caption sent twice (after the photo was stored): refused, and the stored photo goes.
            var twice = MultipartBody.iOS(image: TestImage.jpeg(), title: "first")
            let end = "--\(MultipartBody.iOSBoundary)--\r\n"
            twice.body.moveWriterIndex(to: twice.body.writerIndex - end.utf8.count)
            twice.body.writeString("--\(MultipartBody.iOSBoundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nsecond\r\n" + end)
            let captions = try await app.client.execute(
                uri: "/api/upload_photo", method: .post,
                headers: [.contentType: twice.contentType, .authorization: "Token token=\(token)"], body: twice.body
            )
            #expect(try captions.apiError() == (400, "Send one caption per upload."))

            #expect(try await app.photoCount() == 0)
            #expect(app.filesInBlobStore().isEmpty)
            #expect(try await app.client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }

    @Test("a 10 MB JSON body is refused with 413 without reading it all")
    func hugeJSON() async throws {
        try await withTestApp { app in
            let port = try #require(app.client.port)
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/signin")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "Authorization", value: app.api.basicAuthorization)
            request.body = .bytes(ByteBuffer(string: "{\"email\":\"" + String(repeating: "a", count: 10 * 1024 * 1024) + "\"}"))
            let started = ContinuousClock.now
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1024 * 1024)
            #expect(response.status.code == 413)
            let error = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? NSDictionary
            #expect(error == ["status": 413, "message": "The request body is too large (at most 16 KB)."] as NSDictionary)
            #expect(ContinuousClock.now - started < .seconds(3))
            #expect(try await app.client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }

    @Test("unknown paths and wrong methods under /api: 404 {\"status\":404,\"message\":\"Wrong URL or HTTP method\"}")
    func wrongURL() async throws {
        try await withTestApp { app in
            for (method, path) in [(HTTPRequest.Method.get, "/api/nothing_here"), (.get, "/api/signup"), (.post, "/api/get_photos"), (.put, "/api/delete_photo"), (.get, "/api")] {
                let response = try await app.api.send(method, path, authorization: nil)
                #expect(response.status == .notFound, "\(method) \(path)")
                #expect(try response.apiError() == (404, "Wrong URL or HTTP method"))
            }
        }
    }

    @Test("no column holds a token or password in plaintext after signup and signin")
    func nothingInPlaintext() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let password = "plaintext-canary-password"
            let token = try await app.api.signedInUser(email: email, password: password)
            let browser = app.browser()
            try await browser.signIn(email: email, password: password)
            let cookie = try #require(browser.cookies["selfie_session"])
            let dump: String = try await app.scalar(
                """
                SELECT string_agg(t::text, ' ') FROM (
                    SELECT u::text AS t FROM users u UNION ALL SELECT s::text FROM web_sessions s
                    UNION ALL SELECT a::text FROM api_tokens a
                ) rows
                """
            )
            for secret in [password, token, cookie, app.api.encrypt(password)] {
                #expect(!dump.contains(secret))
            }
            #expect(dump.contains(email))
        }
    }
}

@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    /// `(method, path)` of every operation in openapi.yaml.
    static func documentedOperations(_ yaml: String) -> Set<String> {
        var operations: Set<String> = []
        var path: String?
        for line in yaml.split(separator: "\n") {
            if let match = String(line).firstCapture(of: #"^  (/[^:]+):\s*$"#) {
                // `/api/albums/{id}` in the document is `/api/albums/:id` in the router.
                path = match.replacingOccurrences(of: #"\{([a-z_]+)\}"#, with: ":$1", options: .regularExpression)
            } else if let method = String(line).firstCapture(of: #"^    (get|put|post|delete|patch|head|options):\s*$"#), let path {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test("every API route is in the document and every documented operation is a route")
    func routesMatchDocument() async throws {
        try await withTestApp { app in
            let served = try await app.client.execute(uri: "/api/openapi.yaml", method: .get)
            #expect(served.status == .ok)
            #expect(served.headers[.contentType]?.hasPrefix("application/yaml") == true)
            let documented = Self.documentedOperations(served.text)

            let services = try CoreServices(forWeb: app.config, logger: testLogger)
            let controller = try APIController(services: services, paths: ResourcePaths(root: repositoryRoot), translations: CatalogueTests.translations)
            try await services.http.client.shutdown()
            let routes = Set(controller.routes.map { "\($0.method.rawValue) \($0.path)" })
            #expect(routes == documented)

            // and the running server really answers each documented operation (a 401 or 200, never "Wrong URL")
            for operation in documented {
                let parts = operation.split(separator: " ")
                let response = try await app.api.send(HTTPRequest.Method(String(parts[0]))!, String(parts[1]), authorization: nil)
                #expect(response.status != .notFound && response.status.code < 500, "\(operation): \(response.status)")
            }
        }
    }
}
