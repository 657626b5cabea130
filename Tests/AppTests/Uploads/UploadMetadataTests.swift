@testable import SelfieCore
import Foundation
import Testing

@Suite("tus Upload-Metadata")
struct UploadMetadataTests {
    func encoded(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    @Test("reads filename, title and album_id; a key alone is empty; other keys are ignored; it round-trips")
    func reads() throws {
        let header = "filename \(encoded("IMG_0001.HEIC")),title \(encoded("Zoë at the beach, 2026")),album_id \(encoded("abc")),is_confidential,filetype \(encoded("image/heic"))"
        let metadata = try UploadMetadata(header: header)
        #expect(metadata == UploadMetadata(filename: "IMG_0001.HEIC", title: "Zoë at the beach, 2026", albumID: "abc"))
        #expect(try UploadMetadata(header: metadata.header) == metadata)
        #expect(try UploadMetadata(header: nil) == UploadMetadata())
        #expect(try UploadMetadata(header: "  ") == UploadMetadata())
    }

    @Test("refuses what tus does not allow", arguments: ["filename", "filename !!!", "a b c", ",", "title \(Data([0xFF, 0xFE]).base64EncodedString())",
        "filename \(Data("a\u{0}b.jpg".utf8).base64EncodedString())", "filename \(Data(String(repeating: "x", count: 256).utf8).base64EncodedString())",
        "album_id \(Data("abc'; --".utf8).base64EncodedString())", "album_id \(Data(String(repeating: "a", count: 65).utf8).base64EncodedString())"])
    func refuses(header: String) {
        #expect(throws: UploadMetadata.Problem.self) { try UploadMetadata(header: header == "filename" ? "filename x,filename y" : header) }
    }
}
