import FakeProviders
import Foundation

// Serves the fake identity providers for scripts/e2e.sh and scripts/schemathesis.sh:
//   selfie-fake-providers PORT CLIENT_ID CLIENT_SECRET
// CLIENT_ID/CLIENT_SECRET are the OpenID Connect client and the Facebook app. The consent page
// signs in as "Gail Google" <gail.google@example.com> (email verified).
let arguments = CommandLine.arguments
guard arguments.count == 4, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: selfie-fake-providers PORT CLIENT_ID CLIENT_SECRET\n".utf8))
    exit(64)
}
let fake = try await FakeProviders()
fake.registerClient(arguments[2], secret: arguments[3])
fake.registerFacebookApp(arguments[2], secret: arguments[3])
fake.setPerson(.init(subject: "e2e-subject-1", email: "gail.google@example.com", emailVerified: true, name: "Gail Google"))
try await fake.serving(port: port) { url in
    FileHandle.standardOutput.write(Data("fake providers serving on \(url)\n".utf8))
    while true { try await Task.sleep(for: .seconds(3600)) }
}
