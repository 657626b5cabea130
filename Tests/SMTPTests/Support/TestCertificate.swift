import Foundation

/// A self-signed certificate for the name `localhost`, made with openssl in a sink's directory.
/// It has no IP address entry on purpose: NIOSSL accepts a certificate whose IP entry matches the
/// peer address whatever server name was asked for, which would hide server-name mistakes.
struct TestCertificate: Sendable {
    let certificatePath: String
    let keyPath: String

    static func make(in directory: URL) async throws -> TestCertificate {
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        try await ChildProcess.run(
            [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                "-nodes", "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost",
            ],
            in: directory
        )
        return TestCertificate(certificatePath: certificate, keyPath: key)
    }
}
