@testable import App
@testable import SelfieCore
import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// Where the peers of scripts/test-peers.sh listen: its env file, overridden by the environment.
enum TestPeerSettings {
    static let values: [String: String] = {
        var values = DotEnvFile.parse((try? String(contentsOfFile: "\(repositoryRoot)/.build/test-peers/env", encoding: .utf8)) ?? "")
        values.merge(ProcessInfo.processInfo.environment) { _, environment in environment }
        return values
    }()
}

/// The S3-compatible servers `make test` starts on loopback (scripts/test-peers.sh).
enum S3Peer: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// Checks every SigV4 signature strictly.
    case nanio
    /// Broad S3 behaviour; accepts any signature.
    case moto

    var testDescription: String { rawValue }

    private static var settings: [String: String] { TestPeerSettings.values }

    /// A configuration for a bucket of `bucket`'s name on this peer.
    func configuration(bucket: String) throws -> S3Configuration {
        let prefix = "TEST_S3_\(rawValue.uppercased())_"
        guard let endpoint = Self.settings[prefix + "ENDPOINT"].flatMap(URL.init(string:)) else {
            throw TestSetupError("\(prefix)ENDPOINT is not set: run the tests with `make test`, which starts \(rawValue) on loopback")
        }
        return S3Configuration(
            endpoint: endpoint,
            region: "us-east-1",
            bucket: bucket,
            credentials: AWSCredentials(
                accessKeyID: Self.settings[prefix + "ACCESS_KEY"] ?? "moto-accepts-anything",
                secretAccessKey: Self.settings[prefix + "SECRET_KEY"] ?? "moto-accepts-anything"
            ),
            addressing: .path
        )
    }

    /// A new, empty bucket for one test.
    func makeBucket() async throws -> S3Configuration {
        let configuration = try configuration(bucket: "selfie-test-\(UUID().uuidString.prefix(13).lowercased())")
        try await S3Client(configuration: configuration, logger: testLogger).createBucket()
        return configuration
    }
}

/// GETs a URL with no headers at all, as a browser loading an `<img>` would.
func plainGET(_ url: String) async throws -> (status: Int, body: [UInt8], contentType: String?) {
    let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
    let body = try await response.body.collect(upTo: 64 * 1024 * 1024)
    return (Int(response.status.code), Array(body.readableBytesView), response.headers.first(name: "Content-Type"))
}

extension SilentProxy {
    /// Runs `body` with a new bucket on `peer` reached through a proxy, which can then break the
    /// store's answers off or drop its connections: the configuration given points at the proxy.
    static func withBucket<T: Sendable>(on peer: S3Peer, _ body: (SilentProxy, S3Configuration) async throws -> T) async throws -> T {
        var bucket = try await peer.makeBucket()
        return try await with { proxy in
            proxy.forward(to: try #require(bucket.endpoint.host), port: try #require(bucket.endpoint.port))
            bucket.endpoint = URL(string: "http://127.0.0.1:\(proxy.port)")!
            return try await body(proxy, bucket)
        }
    }
}
