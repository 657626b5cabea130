import Base64URLCoding
import Testing
@testable import WebAuthn

@Suite("Base64url and challenges")
struct Base64URLTests {
    /// RFC 4648 §10 vectors, in the URL alphabet without padding.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ]

    @Test("RFC 4648 vectors", arguments: vectors)
    func rfcVectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test("uses - and _ instead of + and /")
    func urlAlphabet() {
        #expect(Base64URL.encode([0xfb, 0xff, 0xbf]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xfb, 0xff, 0xbf])
    }

    @Test("strict decoding: padding, standard alphabet, whitespace, bad length, leftover bits refused")
    func strict() {
        #expect(Base64URL.decode("Zg==") == nil)
        #expect(Base64URL.decode("+/+/") == nil)
        #expect(Base64URL.decode("Zm9v Yg") == nil)
        #expect(Base64URL.decode("Zm9vY") == nil)
        #expect(Base64URL.decode("Zh") == nil) // "f" is Zg; h leaves non-zero bits
    }

    @Test("challenges are 32 fresh random bytes and survive base64url")
    func challenges() throws {
        let challenges = (0..<10).map { _ in WebAuthnChallenge.generate() }
        #expect(challenges.allSatisfy { $0.bytes.count == 32 })
        #expect(Set(challenges).count == 10)
        let first = challenges[0]
        #expect(first.base64URL.count == 43)
        #expect(WebAuthnChallenge(base64URL: first.base64URL) == first)
        #expect(WebAuthnChallenge(base64URL: first.base64URL + "=") == nil)
    }
}
