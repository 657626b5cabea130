import ExternalTools
import Foundation
import QRCode
import Testing

@Suite("Automatic mask choice")
struct QRCodeMaskSelectionTests {
    /// The four penalty rules written again in Python and applied to segno's eight symbols, so the
    /// check does not reuse the Swift scoring. Same conventions: format information included,
    /// quiet zone counted as light for the finder-like rule, the first lowest mask wins.
    /// segno gets the same padding fix as in `SegnoReference`.
    private static let script = """
        import json, sys, segno, segno.consts, segno.encoder
        \(SegnoReference.specPaddingPatch)
        def penalty(m):
            n = len(m); score = 0
            lines = [list(r) for r in m] + [[m[r][c] for r in range(n)] for c in range(n)]
            for line in lines:
                run = 1
                for i in range(1, n):
                    if line[i] == line[i - 1]: run += 1
                    else:
                        if run >= 5: score += run - 2
                        run = 1
                if run >= 5: score += run - 2
                text = "0000" + "".join(str(v) for v in line) + "0000"
                for i in range(len(text) - 10):
                    if text[i:i + 11] in ("00001011101", "10111010000"): score += 40
            for r in range(n - 1):
                for c in range(n - 1):
                    if m[r][c] == m[r][c + 1] == m[r + 1][c] == m[r + 1][c + 1]: score += 3
            dark = sum(map(sum, m))
            return score + abs(dark * 20 - n * n * 10) // (n * n) * 10
        out = []
        for case in json.load(sys.stdin):
            scores = [penalty([list(row) for row in segno.make(case["text"].encode(), error=case["error"],
                       version=case["version"], mask=mask, mode="byte", boost_error=False).matrix]) for mask in range(8)]
            out.append(scores.index(min(scores)))
        json.dump(out, sys.stdout)
        """

    private struct Case: Encodable {
        let text: String
        let error: String
        let version: Int
    }

    @Test("picks the mask with the lowest N1+N2+N3+N4 penalty")
    func lowestPenaltyMask() async throws {
        let texts = [
            "otpauth://totp/Selfie:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Selfie&algorithm=SHA1&digits=6&period=30",
            "otpauth://totp/Selfie:grace.hopper%2Bqr%40example.org?secret=KRSXG5CTMVRXEZLUKN2XAZLSONSWG4TFOQ&issuer=Selfie",
            "HELLO",
            String(repeating: "A", count: 40),
        ]
        let levels: [QRErrorCorrectionLevel] = [.medium, .low, .high, .quartile]
        let symbols = try zip(texts, levels).map { try QRCodeSymbol(text: $0, errorCorrectionLevel: $1) }
        let cases = zip(texts, symbols).map { text, symbol in
            Case(text: text, error: ["l", "m", "q", "h"][symbol.errorCorrectionLevel.rawValue], version: symbol.version)
        }
        let output = try await ExternalTool.run(["python3", "-c", Self.script], stdin: try JSONEncoder().encode(cases))
        let expectedMasks = try JSONDecoder().decode([Int].self, from: output.stdout)
        #expect(symbols.map(\.mask) == expectedMasks)
    }
}
