import Foundation
import Testing
@testable import OneTimePassword

@Suite("Recovery codes")
struct RecoveryCodesTests {
    @Test("ten distinct codes shaped xxxx-xxxx-xxxx from the unambiguous alphabet")
    func shape() {
        let codes = RecoveryCodes.generate()
        #expect(codes.count == 10)
        #expect(Set(codes).count == 10)
        for code in codes {
            let parts = code.split(separator: "-")
            #expect(parts.map(\.count) == [4, 4, 4])
            #expect(code.allSatisfy { "0123456789abcdefghjkmnpqrstvwxyz-".contains($0) })
        }
    }

    @Test("every symbol of the 32 shows up: the codes really carry 5 bits per symbol")
    func alphabetCoverage() {
        let symbols = Set(RecoveryCodes.generate(count: 200).joined().filter { $0 != "-" })
        #expect(symbols.count == 32)
    }

    @Test("typed variants normalise to the same code")
    func normalisation() {
        #expect(RecoveryCodes.normalize("ab12-cd34-ef56") == "ab12cd34ef56")
        #expect(RecoveryCodes.normalize(" AB12 CD34 EF56 ") == "ab12cd34ef56")
        #expect(RecoveryCodes.normalize("ab12cd34ef56") == "ab12cd34ef56")
        #expect(RecoveryCodes.normalize("abI2-cdL4-eF5O") == "ab12cd14ef50") // look-alikes read as digits
        #expect(RecoveryCodes.normalize("ab12-cd34-ef5") == nil)    // too short
        #expect(RecoveryCodes.normalize("ab12-cd34-ef567") == nil)  // too long
        #expect(RecoveryCodes.normalize("ab12-cd34-ef5u") == nil)   // u is not in the alphabet
        #expect(RecoveryCodes.normalize("ab12_cd34_ef56") == nil)
    }

    @Test("hash is SHA-256 of the normalised code; matching finds the right stored hash only")
    func hashingAndMatching() throws {
        let codes = RecoveryCodes.generate()
        let stored = try codes.map { try #require(RecoveryCodes.storageHash(of: $0)) }
        #expect(stored.allSatisfy { $0.count == 32 })
        // Known value: SHA-256("ab12cd34ef56").
        let known = try #require(RecoveryCodes.storageHash(of: "AB12 CD34 EF56"))
        #expect(known.map { String(format: "%02x", $0) }.joined() == "d8de14bc62a592ef3d909da07d86d1833561228ccaa1b8e48fdf29c7ca88d5f2")
        let typed = codes[3].uppercased().replacingOccurrences(of: "-", with: " ")
        #expect(RecoveryCodes.firstMatch(typed, storedHashes: stored) == 3)
        #expect(RecoveryCodes.firstMatch(codes[3], storedHashes: Array(stored[4...])) == nil)
        #expect(RecoveryCodes.firstMatch("not a code", storedHashes: stored) == nil)
    }
}
