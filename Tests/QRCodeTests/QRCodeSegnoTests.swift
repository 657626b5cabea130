import Foundation
import QRCode
import Testing

@Suite("QR matrix matches segno bit for bit")
struct QRCodeSegnoTests {
    /// Deterministic bytes covering the whole 0–255 range, so byte mode is exercised beyond ASCII.
    private func sampleBytes(count: Int, seed: Int) -> [UInt8] {
        var state = UInt32(truncatingIfNeeded: seed &* 2_654_435_761 &+ 1)
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    private func capacity(version: Int, level: QRErrorCorrectionLevel) -> Int {
        do throws(QRCodeError) {
            _ = try QRCodeSymbol(bytes: [UInt8](repeating: 0x41, count: 4000), errorCorrectionLevel: level, versions: version...version)
        } catch {
            if case .dataTooLong(_, let maximum) = error { return maximum }
        }
        return -1
    }

    @Test("all 40 versions × 4 levels, filled to capacity, masks cycling")
    func everyVersionAndLevel() async throws {
        var requests: [SegnoReference.Request] = []
        var mine: [QRCodeSymbol] = []
        for version in 1...40 {
            for level in QRErrorCorrectionLevel.allCases {
                let bytes = sampleBytes(count: capacity(version: version, level: level), seed: version * 4 + level.rawValue)
                let mask = (version + level.rawValue) % 8
                mine.append(try QRCodeSymbol(bytes: bytes, errorCorrectionLevel: level, versions: version...version, mask: mask))
                requests.append(.init(bytes: bytes, level: level, version: version, mask: mask))
            }
        }
        let reference = try await SegnoReference.symbols(for: requests)
        for (symbol, expected) in zip(mine, reference) {
            #expect(symbol.version == expected.version)
            let difference = SegnoReference.firstDifference(symbol.rows, expected.matrix)
            #expect(difference == nil, "version \(symbol.version) \(symbol.errorCorrectionLevel) mask \(symbol.mask)")
        }
    }

    @Test("otpauth URIs pick the same smallest version as segno, versions 1 through 12")
    func otpauthURIsAcrossVersions() async throws {
        let base = "otpauth://totp/Selfie:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Selfie&algorithm=SHA1&digits=6&period=30"
        // Lengths chosen so level M lands on versions 1...10 in turn, then a ~300-byte URI (version 12).
        let lengths = [10, 20, 40, 60, 80, 100, 120, 150, 175, 210]
        var texts = lengths.map { length in String(repeating: base, count: 3).prefix(length).description }
        texts.append(base + "&label=" + String(repeating: "Z%C3%B6e%20", count: 12))
        var requests: [SegnoReference.Request] = []
        var mine: [QRCodeSymbol] = []
        for (index, text) in texts.enumerated() {
            let mask = index % 8
            mine.append(try QRCodeSymbol(text: text, mask: mask))
            requests.append(.init(bytes: Array(text.utf8), level: .medium, version: nil, mask: mask))
        }
        #expect(mine.prefix(10).map(\.version) == Array(1...10))
        #expect(mine.last?.version == 12)

        let reference = try await SegnoReference.symbols(for: requests)
        for (symbol, expected) in zip(mine, reference) {
            #expect(symbol.version == expected.version)
            #expect(SegnoReference.firstDifference(symbol.rows, expected.matrix) == nil, "version \(symbol.version)")
        }
    }

    @Test("every mask on a version-7 symbol (version information blocks present)")
    func everyMaskOnVersionSeven() async throws {
        let text = "otpauth://totp/Selfie:ada%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Selfie&digits=6"
        let mine = try (0..<8).map { try QRCodeSymbol(text: text, errorCorrectionLevel: .medium, versions: 7...40, mask: $0) }
        #expect(mine.allSatisfy { $0.version == 7 })
        let reference = try await SegnoReference.symbols(
            for: (0..<8).map { .init(bytes: Array(text.utf8), level: .medium, version: 7, mask: $0) })
        for (symbol, expected) in zip(mine, reference) {
            #expect(expected.mask == symbol.mask)
            #expect(SegnoReference.firstDifference(symbol.rows, expected.matrix) == nil, "mask \(symbol.mask)")
        }
    }
}
