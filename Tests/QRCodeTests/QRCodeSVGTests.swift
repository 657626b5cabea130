import ExternalTools
import Foundation
import QRCode
import Testing

@Suite("QR SVG output")
struct QRCodeSVGTests {
    @Test("renders with rsvg-convert and decodes with zbarimg to the exact input", arguments: [
        "otpauth://totp/Selfie:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Selfie&algorithm=SHA1&digits=6&period=30",
        "otpauth://totp/Selfie%20%26%20Co:o%27brien%2Btest%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBV"
            + "GY3TQOJQ&issuer=Selfie%20%26%20Co&algorithm=SHA1&digits=6&period=30&image=https%3A%2F%2Fselfie.example%2F"
            + "logo.png%3Fv%3D1%26size%3D%3C64%3E&label=%22Zo%C3%AB%22~!*()#frag",
    ])
    func roundTripThroughRealDecoder(uri: String) async throws {
        let symbol = try QRCodeSymbol(text: uri, errorCorrectionLevel: .medium)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let svgURL = directory.appendingPathComponent("code.svg")
        let pngURL = directory.appendingPathComponent("code.png")
        try Data(symbol.svg(title: "Scan with your authenticator app", width: 300, height: 300).utf8).write(to: svgURL)

        // About 8 px per module: comfortably above what zbar needs, like a phone camera would see.
        let pixels = (symbol.size + 8) * 8
        try await ExternalTool.run(["rsvg-convert", "-w", "\(pixels)", "-h", "\(pixels)", "-o", pngURL.path, svgURL.path])
        let decoded = try await ExternalTool.run(["zbarimg", "--raw", "-q", pngURL.path])
        var text = String(decoding: decoded.stdout, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        #expect(text == uri)
        #expect(symbol.version > 1)
    }

    @Test("document shape: viewBox with quiet zone, size attributes, one path, no script, escaped title")
    func documentShape() throws {
        let symbol = try QRCodeSymbol(text: "otpauth://totp/Selfie:a?secret=JBSWY3DP")
        let svg = symbol.svg(title: #"Set up "2FA" for <ada> & 'co'</title><script>alert(1)</script>"#, width: 240, height: 200)
        let side = symbol.size + 8
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(side) \(side)\" width=\"240\" height=\"200\""))
        #expect(svg.contains(#"shape-rendering="crispEdges""#))
        #expect(svg.contains(#"role="img""#))
        #expect(svg.contains("<title>Set up &quot;2FA&quot; for &lt;ada&gt; &amp; &#39;co&#39;&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>"))
        #expect(!svg.contains("<script"))
        #expect(svg.components(separatedBy: "<path").count == 2)
        #expect(svg.hasSuffix("</svg>"))

        let plainOpeningTag = try #require(symbol.svg(title: "QR").split(separator: ">").first)
        #expect(!plainOpeningTag.contains("width=") && !plainOpeningTag.contains("height="))
    }

    @Test("the SVG path covers exactly the dark modules, offset by the 4-module quiet zone")
    func pathMatchesMatrix() throws {
        let symbol = try QRCodeSymbol(text: "otpauth://totp/Selfie:ada%40example.com?secret=JBSWY3DPEHPK3PXP")
        let svg = symbol.svg(title: "QR")
        let pathData = try #require(svg.components(separatedBy: " d=\"").last?.components(separatedBy: "\"").first)
        var painted = Array(repeating: Array(repeating: false, count: symbol.size + 8), count: symbol.size + 8)
        for command in pathData.split(separator: "M") {
            // Each command is "x yhNv1h-Nz".
            let parts = command.split(whereSeparator: { " hvz".contains($0) })
            let x = try #require(Int(parts[0])), y = try #require(Int(parts[1])), length = try #require(Int(parts[2]))
            for column in x..<(x + length) { painted[y][column] = true }
        }
        let expected = (0..<(symbol.size + 8)).map { row in
            (0..<(symbol.size + 8)).map { column in
                (4..<(symbol.size + 4)).contains(row) && (4..<(symbol.size + 4)).contains(column)
                    && symbol[row - 4, column - 4]
            }
        }
        #expect(painted == expected)
    }
}

@Suite("QR input limits")
struct QRCodeLimitTests {
    @Test("data beyond the largest allowed version is rejected with the capacity")
    func tooLong() {
        #expect(throws: QRCodeError.dataTooLong(byteCount: 300, maximumByteCount: 213)) {
            try QRCodeSymbol(bytes: [UInt8](repeating: 0x61, count: 300), errorCorrectionLevel: .medium, versions: 1...10)
        }
        #expect(throws: QRCodeError.dataTooLong(byteCount: 2332, maximumByteCount: 2331)) {
            try QRCodeSymbol(bytes: [UInt8](repeating: 0x61, count: 2332), errorCorrectionLevel: .medium)
        }
    }

    @Test("invalid mask and version range are rejected")
    func invalidParameters() {
        #expect(throws: QRCodeError.invalidMask(8)) { try QRCodeSymbol(text: "x", mask: 8) }
        #expect(throws: QRCodeError.invalidVersionRange(0...3)) { try QRCodeSymbol(text: "x", versions: 0...3) }
        #expect(throws: QRCodeError.invalidVersionRange(30...41)) { try QRCodeSymbol(text: "x", versions: 30...41) }
    }
}
