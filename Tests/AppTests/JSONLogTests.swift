@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

/// `LOG_FORMAT=json`: every line an object a log collector can parse, the request line with its
/// well-known fields, nothing secret.
@Suite("JSON logs")
struct JSONLogTests {
    @Test("every line parses as one JSON object; request lines carry request id, method, path, route, status, duration and the user; no secret appears")
    func linesParse() async throws {
        let lines = Mutex<[String]>([])
        let logger = {
            var logger = Logger(label: "selfie") { label in JSONLogHandler(label: label) { line in lines.withLock { $0.append(line) } } }
            logger.logLevel = .info
            return logger
        }()
        let password = "json log password 1"
        let email = uniqueEmail("json")
        let token = try await withTestApp(logger: logger) { app in
            let token = try await app.api.signedInUser(email: email, password: password)
            #expect(try await app.api.getPhotos(token: token).status == .ok)
            #expect(try await app.client.execute(uri: "/no/such/page?secret=1", method: .get).status == .notFound)
            // A message with quotes, a newline and a control character stays one line of valid JSON.
            logger.warning("odd \"message\"\nsecond line \u{07}", metadata: ["note": "tab\there", "user": "inf"])
            return token
        }
        let all = lines.withLock { $0 }
        #expect(all.count > 5)
        var objects: [[String: Any]] = []
        for line in all {
            #expect(line.hasSuffix("\n") && line.dropLast().firstIndex(of: "\n") == nil, "one line: \(line)")
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            try #require(object != nil, "not a JSON object: \(line)")
            objects.append(object!)
            #expect(!line.contains(token) && !line.contains(password), "a secret in \(line)")
        }
        for object in objects {
            #expect(object["time"] is String && object["level"] is String && object["message"] is String)
        }
        let requests = objects.filter { $0["message"] as? String == "request" }
        let photos = try #require(requests.first { $0["path"] as? String == "/api/get_photos" })
        #expect(photos["method"] as? String == "GET")
        #expect(photos["route"] as? String == "/api/get_photos")
        #expect(photos["status"] as? Int == 200)
        #expect(photos["duration_ms"] is Double || photos["duration_ms"] is Int)
        #expect((photos["request_id"] as? String)?.isEmpty == false)
        #expect(photos["user_id"] as? Int != nil, "the token's user")
        let missing = try #require(requests.first { $0["path"] as? String == "/no/such/page" })
        #expect(missing["status"] as? Int == 404)
        #expect(missing["user_id"] == nil)
        #expect(missing["hb.request.query_keys"] as? String == "secret")
        let odd = try #require(objects.first { ($0["message"] as? String)?.hasPrefix("odd") == true })
        #expect(odd["message"] as? String == "odd \"message\"\nsecond line \u{07}")
        #expect(odd["note"] as? String == "tab\there")
        #expect(odd["user_id"] as? String == "inf", "a number field that is not a number stays a string")
    }

    @Test("LOG_FORMAT is text or json; anything else refuses to start")
    func setting() throws {
        var environment = ConfigurationTests().complete
        #expect(try AppConfiguration.load(from: environment).logFormat == .text)
        environment["LOG_FORMAT"] = "JSON"
        #expect(try AppConfiguration.load(from: environment).logFormat == .json)
        environment["LOG_FORMAT"] = "xml"
        let error = #expect(throws: ConfigurationError.self) { try AppConfiguration.load(from: environment) }
        #expect(error?.description.contains("LOG_FORMAT must be text or json") == true)
    }
}
