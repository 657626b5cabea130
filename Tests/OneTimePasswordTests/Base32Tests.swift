import Testing
@testable import OneTimePassword

@Suite("Base32 (RFC 4648 §10 vectors)")
struct Base32Tests {
    /// RFC 4648 §10, with the `=` padding removed because we encode without it.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "MY"), ("fo", "MZXQ"), ("foo", "MZXW6"), ("foob", "MZXW6YQ"),
        ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI"),
    ]

    @Test("encodes the RFC vectors without padding", arguments: vectors)
    func encodes(plain: String, encoded: String) {
        #expect(Base32.encode(Array(plain.utf8)) == encoded)
    }

    @Test("decodes the RFC vectors, padded or not", arguments: vectors)
    func decodes(plain: String, encoded: String) {
        #expect(Base32.decode(encoded) == Array(plain.utf8))
        let padded = encoded + String(repeating: "=", count: (8 - encoded.count % 8) % 8)
        #expect(Base32.decode(padded) == Array(plain.utf8))
    }

    @Test("decoding ignores case and spaces")
    func lenientInput() {
        #expect(Base32.decode("mzxw 6ytb oi") == Array("foobar".utf8))
        #expect(Base32.decode("MzXw6YtBoI") == Array("foobar".utf8))
    }

    @Test("decoding refuses bad symbols, impossible lengths, non-zero leftover bits, text after padding")
    func refusals() {
        #expect(Base32.decode("MZXW1") == nil)      // 1 is not in the alphabet
        #expect(Base32.decode("MZXW6Y8") == nil)    // nor is 8
        #expect(Base32.decode("M") == nil)          // 1 symbol = 5 bits, not a byte
        #expect(Base32.decode("MZX") == nil)        // 3 symbols cannot come from any byte count
        #expect(Base32.decode("MZ") == nil)         // "f" is MY: Z leaves non-zero leftover bits
        #expect(Base32.decode("MY==MY") == nil)
    }

    @Test("random secrets round-trip")
    func roundTrip() {
        for _ in 0..<50 {
            let secret = TOTP.generateSecret()
            #expect(Base32.decode(Base32.encode(secret)) == secret)
        }
    }
}
