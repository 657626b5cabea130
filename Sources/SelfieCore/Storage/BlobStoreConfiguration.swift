import Foundation

/// Which blob store holds the photos, from `BLOB_STORE` and its variables.
public enum BlobStoreConfiguration: Sendable, Equatable {
    /// `BLOB_STORE=fs` (default): files under `BLOB_DIR`, served by Selfie through signed `/media` URLs.
    case filesystem(directory: String)
    /// `BLOB_STORE=s3`: any S3-compatible object store; images load from presigned URLs.
    case s3(S3Configuration)

    static func load(value: (String) -> String?, problems: inout [String]) -> BlobStoreConfiguration? {
        switch value("BLOB_STORE")?.lowercased() ?? "fs" {
        case "fs":
            return .filesystem(directory: value("BLOB_DIR") ?? "data/blobs")
        case "s3":
            var missing: [String] = []
            func required(_ name: String) -> String {
                guard let text = value(name) else {
                    missing.append(name)
                    return ""
                }
                return text
            }
            let bucket = required("S3_BUCKET_NAME")
            let accessKey = required("AWS_ACCESS_KEY_ID")
            let secretKey = required("AWS_SECRET_ACCESS_KEY")
            problems += missing.map { "\($0) is missing (needed with BLOB_STORE=s3)" }
            let region = value("S3_REGION") ?? "us-east-1"
            var endpoint: URL?
            if let raw = value("S3_ENDPOINT") {
                let trimmed = raw.hasSuffix("/") ? String(raw.dropLast()) : raw
                if let url = URL(string: trimmed), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil {
                    endpoint = url
                } else {
                    problems.append("S3_ENDPOINT must be an absolute http(s) URL, got \"\(raw)\"")
                }
            }
            var addressing: S3Configuration.Addressing = endpoint == nil ? .virtualHost : .path
            if let raw = value("S3_ADDRESSING_STYLE") {
                switch raw.lowercased() {
                case "path": addressing = .path
                case "virtual": addressing = .virtualHost
                default: problems.append("S3_ADDRESSING_STYLE must be path or virtual, got \"\(raw)\"")
                }
            }
            var publicEndpoint: URL?
            if let raw = value("S3_PUBLIC_ENDPOINT") {
                let trimmed = raw.hasSuffix("/") ? String(raw.dropLast()) : raw
                if let url = URL(string: trimmed), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil {
                    publicEndpoint = url
                } else {
                    problems.append("S3_PUBLIC_ENDPOINT must be an absolute http(s) URL, got \"\(raw)\"")
                }
            }
            guard missing.isEmpty else { return nil }
            var configuration =
                S3Configuration(
                    endpoint: endpoint ?? URL(string: "https://s3.\(region).amazonaws.com")!,
                    region: region,
                    bucket: bucket,
                    credentials: AWSCredentials(
                        accessKeyID: accessKey,
                        secretAccessKey: secretKey,
                        sessionToken: value("AWS_SESSION_TOKEN")
                    ),
                    addressing: addressing
                )
            configuration.publicEndpoint = publicEndpoint
            return .s3(configuration)
        case let other:
            problems.append("BLOB_STORE must be fs or s3, got \"\(other)\"")
            return nil
        }
    }
}

/// Where and how to reach an S3-compatible bucket.
public struct S3Configuration: Sendable, Equatable {
    public enum Addressing: Sendable, Equatable {
        /// `https://endpoint/bucket/key`: MinIO, Garage, Ceph, local servers.
        case path
        /// `https://bucket.endpoint/key`: AWS's default.
        case virtualHost
    }

    public var endpoint: URL
    public var region: String
    public var bucket: String
    public var credentials: AWSCredentials
    public var addressing: Addressing
    /// Objects are kept under this prefix, so the bucket may hold other things too.
    public var keyPrefix = "photos/"
    /// Where browsers and apps reach the store, when that differs from `endpoint` (a store on
    /// an internal network behind a public name). Image URLs are signed for this address.
    public var publicEndpoint: URL?

    public init(endpoint: URL, region: String, bucket: String, credentials: AWSCredentials, addressing: Addressing) {
        self.endpoint = endpoint
        self.region = region
        self.bucket = bucket
        self.credentials = credentials
        self.addressing = addressing
    }
}
