@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting

/// Talks to `/api` the way the railsauth iOS app does (HTTPHelper.swift): JSON bodies built by string
/// interpolation, `Content-Type: application/json` on every request (GETs too), HTTP Basic with
/// the app key for signup/signin/get_token, `Token token=<t>` for the rest, AESCrypt passwords.
struct APIClient {
    let client: any TestClientProtocol
    var appKeyName = "test-app"
    var appKeyPassword = "test-app-password"

    var basicAuthorization: String {
        "Basic " + Data("\(appKeyName):\(appKeyPassword)".utf8).base64EncodedString()
    }

    func encrypt(_ password: String) -> String {
        try! AESCrypt.encrypt(password, key: AESCrypt.key(forPassword: appKeyPassword))
    }

    func send(
        _ method: HTTPRequest.Method,
        _ path: String,
        body: String? = nil,
        authorization: String?,
        contentType: String = "application/json",
        extraHeaders: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: contentType]
        if let authorization { headers[.authorization] = authorization }
        headers.append(contentsOf: extraHeaders)
        return try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }

    func signUp(name: String = "Ada King Lovelace", email: String, password: String = "correct horse battery") async throws
        -> TestResponse
    {
        try await send(
            .post,
            "/api/signup",
            body: "{\"full_name\":\"\(name)\",\"email\":\"\(email)\",\"password\":\"\(encrypt(password))\"}",
            authorization: basicAuthorization
        )
    }

    func signIn(email: String, password: String = "correct horse battery") async throws -> TestResponse {
        try await send(
            .post,
            "/api/signin",
            body: "{\"email\":\"\(email)\",\"password\":\"\(encrypt(password))\"}",
            authorization: basicAuthorization
        )
    }

    /// Signs up and in; returns the token.
    func signedInUser(email: String = uniqueEmail(), password: String = "correct horse battery") async throws -> String {
        _ = try await signUp(email: email, password: password)
        let response = try await signIn(email: email, password: password)
        guard let token = try response.json()["api_authtoken"] as? String else { throw TestSetupError("no token: \(response.text)") }
        return token
    }

    func getPhotos(token: String) async throws -> TestResponse {
        try await send(.get, "/api/get_photos", authorization: "Token token=\(token)")
    }

    func uploadPhoto(token: String, image: [UInt8], title: String) async throws -> TestResponse {
        let (contentType, body) = MultipartBody.iOS(image: image, title: title)
        return try await client.execute(
            uri: "/api/upload_photo",
            method: .post,
            headers: [.contentType: contentType, .authorization: "Token token=\(token)"],
            body: body
        )
    }

    func deletePhoto(token: String, id: String) async throws -> TestResponse {
        try await send(.delete, "/api/delete_photo", body: "{\"photo_id\":\"\(id)\"}", authorization: "Token token=\(token)")
    }
}

extension TestResponse {
    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] else {
            throw TestSetupError("not a JSON object: \(text)")
        }
        return object
    }

    func jsonArray() throws -> [[String: Any]] {
        guard let array = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [[String: Any]] else {
            throw TestSetupError("not a JSON array: \(text)")
        }
        return array
    }

    /// The API's error shape: `{"status": <same as HTTP>, "message": "…"}` and nothing else.
    func apiError() throws -> (status: Int, message: String) {
        let object = try json()
        guard Set(object.keys) == ["status", "message"], let status = object["status"] as? Int,
            let message = object["message"] as? String
        else { throw TestSetupError("not an API error: \(text)") }
        return (status, message)
    }
}

extension TestApp {
    var api: APIClient { APIClient(client: client) }
}
