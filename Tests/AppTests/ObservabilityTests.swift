@testable import App
@testable import SelfieCore
import AsyncHTTPClient
import Foundation
import HummingbirdTesting
import Testing

@Suite("Observability")
struct ObservabilityTests {
    static func freePort() throws -> Int {
        let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The metrics page on `port`, as Prometheus reads it.
    static func scrape(port: Int) async throws -> String {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(5))
        #expect(response.status.code == 200)
        return String(buffer: try await response.body.collect(upTo: 4 * 1024 * 1024))
    }

    /// The sum of a series' samples whose line starts with `series` (the process's one registry
    /// counts other tests running at the same time too: compare before and after).
    static func total(_ series: String, in text: String) -> Double {
        text.split(separator: "\n").filter { $0.hasPrefix(series) }.compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
    }

    @Test("Prometheus metrics on the metrics port only: requests by route, uploads, sign-in failures")
    func metrics() async throws {
        let port = try Self.freePort()
        try await withTestApp(configure: { $0.metricsPort = port }) { app in
            let counted = try await Self.scrape(port: port)
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            try await browser.upload(image: TestImage.jpeg())
            try await browser.upload(image: TestImage.text())
            try await app.browser().signIn(email: uniqueEmail(), password: "wrong password")
            /// Static files revalidated with HEAD (counted by the process's one registry, which
            /// other tests running at the same time also count in).
            func revalidations(_ text: String) -> Int {
                text.firstCapture(of: #"(?m)^hb_requests\{http_route="/assets/\*\*",http_request_method="HEAD",http_response_status_code="304"\} ([0-9]+)$"#).flatMap { Int($0) } ?? 0
            }
            // Static files are answered on the connection's loop, not by the router: counted all the same.
            let before = revalidations(try await Self.scrape(port: port))
            let eTag = try #require(try await app.client.execute(uri: "/assets/css/app.css", method: .get).headers[.eTag])
            for _ in 0..<2 {
                #expect(try await app.client.execute(uri: "/assets/css/app.css", method: .head, headers: [.ifNoneMatch: eTag]).status == .notModified)
            }

            let text = try await Self.scrape(port: port)
            #expect(text.contains("hb_requests"))
            #expect(text.contains("http_server_request_duration"))
            #expect(revalidations(text) - before >= 2, "static files counted under their route")
            for series in [#"selfie_photo_uploads_total{result="stored"}"#, #"selfie_photo_uploads_total{result="refused_415"}"#, "selfie_sign_in_failures_total"] {
                #expect(Self.total(series, in: text) - Self.total(series, in: counted) >= 1, "\(series) counted this test's request")
            }
            let open = try #require(text.firstCapture(of: #"(?m)^selfie_db_pool_open_connections ([0-9.]+)$"#).flatMap(Double.init))
            #expect(open >= 1, "this app's pool has connections open")

            #expect(try await app.client.execute(uri: "/metrics", method: .get).status == .notFound, "not on the public port")
        }
    }

    @Test("every response carries its request id, which the request log uses too")
    func requestID() async throws {
        try await withTestApp { app in
            let first = try await app.client.execute(uri: "/signin", method: .get)
            let second = try await app.client.execute(uri: "/signin", method: .get)
            let ids = [first.headers[.xRequestID], second.headers[.xRequestID]].compactMap { $0 }
            #expect(ids.count == 2 && ids[0] != ids[1] && ids.allSatisfy { $0.count >= 16 })
        }
    }
}
