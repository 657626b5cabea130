@testable import App
@testable import SelfieCore
import Testing

@Suite("libmagic through CMagic")
struct MediaSnifferTests {
    @Test("recognises an image by its bytes, and text as text whatever it is called")
    func sniffs() async throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52,
            0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89]
        #expect(try await MediaSniffer.shared.mimeType(of: png) == "image/png")
        #expect(try await MediaSniffer.shared.mimeType(of: Array("just some text, named photo.png\n".utf8)) == "text/plain")
        #expect(try await MediaSniffer.shared.mimeType(of: TestImage.jpeg()) == "image/jpeg")
    }
}
