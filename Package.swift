// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "selfie",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "selfie", targets: ["selfie"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        .systemLibrary(
            name: "CMagic",
            pkgConfig: "libmagic",
            providers: [.apt(["libmagic-dev"])]
        ),
        // libvips (8.14, HEIC through libheif): pkg-config supplies its flags to the C shim, whose
        // non-variadic wrappers Swift can call; Imaging owns decode → upright → sRGB → strip → encode.
        .systemLibrary(
            name: "CLibvips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        // libjpeg directly too: a progressive JPEG's scans split over two threads (progressive_split.c).
        .target(name: "CVips", dependencies: ["CLibvips"], linkerSettings: [.linkedLibrary("jpeg")]),
        // What the image pipeline takes and returns, and the pipe format to its worker: the server
        // uses these without linking libvips.
        .target(
            name: "ImagingTypes",
            dependencies: [.product(name: "NIOCore", package: "swift-nio")]
        ),
        .target(
            name: "Imaging",
            dependencies: ["CVips", "ImagingTypes", .product(name: "NIOCore", package: "swift-nio")]
        ),
        // The contained worker the server sends each photo to: the only process that decodes images.
        .executableTarget(
            name: "selfie-image-worker",
            dependencies: ["Imaging", "CMalloc", "CProcessControl", .product(name: "NIOCore", package: "swift-nio")]
        ),
        // `bench/images.sh`: milliseconds per photo and peak memory of the image pipeline.
        .executableTarget(
            name: "selfie-image-bench",
            dependencies: ["Imaging", .product(name: "NIOCore", package: "swift-nio")]
        ),
        // A streaming multipart/form-data parser that searches for boundaries over whole buffers.
        .target(
            name: "MultipartStream",
            dependencies: [.product(name: "NIOCore", package: "swift-nio")]
        ),
        // A streaming ZIP writer (stored entries, data descriptors, ZIP64): "download my data".
        .target(name: "ZipStream", dependencies: [.product(name: "NIOCore", package: "swift-nio")]),
        // An SMTP client (STARTTLS, implicit TLS, AUTH PLAIN/LOGIN, timeouts) and MIME messages.
        .target(
            name: "SMTP",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // RFC 4226/6238 one-time passwords, Base32, otpauth:// URIs and hashed recovery codes.
        .target(name: "OneTimePassword", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // Base64url without padding (RFC 4648 §5), byte by byte: tokens, signed URLs, WebAuthn.
        .target(name: "Base64URLCoding"),
        // WebAuthn Level 2 relying party: a CBOR reader, authenticator data, ES256/RS256 COSE keys.
        .target(
            name: "WebAuthn",
            dependencies: [
                "Base64URLCoding",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // QR Code model 2 (byte mode, versions 1–40) rendered as SVG: TOTP enrolment on the server.
        .target(name: "QRCode"),
        // The domain: accounts, photos, storage, providers, admin, audit, protection, database.
        // It knows nothing of HTTP serving: no Hummingbird here (HummingbirdBcrypt is a
        // standalone bcrypt module that does not depend on the framework).
        .target(
            name: "SelfieCore",
            dependencies: [
                "CMagic",
                "CProcessControl",
                "ImagingTypes",
                "MultipartStream",
                "SMTP",
                "ZipStream",
                "OneTimePassword",
                "WebAuthn",
                "Base64URLCoding",
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The surfaces: web pages and admin (HTML, sessions, CSRF), the JSON API, signed media,
        // health, static assets, and the command line's admin tools.
        .target(
            name: "App",
            dependencies: [
                "SelfieCore",
                "QRCode",
                "OneTimePassword",
                "WebAuthn",
                "Base64URLCoding",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // Stand-ins for Apple/Google (OpenID Connect), Facebook and Twitter: tests and e2e only.
        .target(
            name: "FakeProviders",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "selfie-fake-providers",
            dependencies: ["FakeProviders"]
        ),
        // glibc's malloc tuning (mallopt), for the server's start-up.
        .systemLibrary(name: "CMalloc"),
        // prctl(2), for the image worker's PR_SET_NO_NEW_PRIVS; pipe2(2) and the spawn's closefrom
        // action, for starting a worker that inherits nothing of the server's.
        .systemLibrary(name: "CProcessControl"),
        .executableTarget(
            name: "selfie",
            dependencies: [
                "CMalloc",
                "App",
                "SelfieCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "AppTests",
            dependencies: [
                "App",
                "CProcessControl",
                "SelfieCore",
                "Imaging",
                "FakeProviders",
                "SMTP",
                "OneTimePassword",
                "Base64URLCoding",
                "WebAuthn",
                "WebAuthnTestSupport",
                "SeededRandom",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // MultipartKit only as the reference the parser is checked against.
        .testTarget(
            name: "MultipartStreamTests",
            dependencies: [
                "MultipartStream",
                "SeededRandom",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "MultipartKit", package: "multipart-kit"),
            ]
        ),
        // Against a real SMTP server: scripts/smtp_sink.py (aiosmtpd), started per test.
        .testTarget(
            name: "SMTPTests",
            dependencies: [
                "SMTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Runs command-line tools (unzip, zbarimg, rsvg-convert, python3) from tests.
        .target(name: "ExternalTools", path: "Tests/ExternalTools"),
        // Seeded random numbers for tests that generate their inputs.
        .target(name: "SeededRandom", path: "Tests/SeededRandom"),
        // Archives read back by Python's zipfile and `unzip -t`.
        .testTarget(
            name: "ZipStreamTests",
            dependencies: ["ZipStream", "ExternalTools", .product(name: "NIOCore", package: "swift-nio")]
        ),
        // RFC 6238 vectors, Base32, otpauth:// read back by Python's urllib, recovery codes.
        // HummingbirdOTP only to show why it is not used (HummingbirdOTPComparisonTests).
        .testTarget(
            name: "OneTimePasswordTests",
            dependencies: ["OneTimePassword", "ExternalTools", .product(name: "HummingbirdOTP", package: "hummingbird-auth")]
        ),
        // The browser's half of WebAuthn ceremonies, for the WebAuthn module's tests and the passkey pages'.
        .target(
            name: "WebAuthnTestSupport",
            dependencies: [
                "WebAuthn",
                "Base64URLCoding",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/WebAuthnTestSupport"
        ),
        // Known byte sequences, an independent Python authenticator (cbor2 + cryptography) and
        // ceremonies recorded from Chromium's virtual authenticator (Fixtures/, read from disk).
        .testTarget(
            name: "WebAuthnTests",
            dependencies: [
                "WebAuthn",
                "WebAuthnTestSupport",
                "Base64URLCoding",
                "ExternalTools",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            exclude: ["Fixtures"]
        ),
        // Symbols compared with segno's and read back by zbarimg from rsvg-convert's rendering.
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode", "ExternalTools"]),
    ]
)
