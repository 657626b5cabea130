@testable import SelfieCore
import Foundation
import NIOCore
import Testing

@Suite("Resumable uploads' part files on the filesystem store")
struct FilePartStorageTests {
    func chunks(_ bytes: [UInt8], size: Int) -> AsyncStream<ByteBuffer> {
        AsyncStream { continuation in
            for start in stride(from: 0, to: bytes.count, by: size) {
                continuation.yield(ByteBuffer(bytes: bytes[start..<min(start + size, bytes.count)]))
            }
            continuation.finish()
        }
    }

    func upload(at offset: Int64, length: Int64) -> ResumableUpload {
        ResumableUpload(
            id: 1, publicID: "up1", userID: 1, length: length, storedOffset: offset, metadata: UploadMetadata(),
            partState: PartState(), photoPublicID: nil, createdAt: .now, expiresAt: .now.addingTimeInterval(3600)
        )
    }

    @Test("appends at the recorded offset (dropping bytes past it), refuses bytes past the length, completes into a blob by rename")
    func appendAndComplete() async throws {
        let root = temporaryBlobDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try FileBlobStore(root: root, signer: MediaURLSigner(secretKey: try SecretKey("test-secret-key-that-is-long-enough-0123456789"), publicURL: URL(string: "http://localhost")!))
        let parts = FilePartStorage(store: store)
        let photo = TestImage.jpeg(size: 300_000, seed: 7)
        let length = Int64(photo.count)

        #expect(try await parts.append(chunks(Array(photo[..<100_000]), size: 8192), to: upload(at: 0, length: length), limit: length).offset == 100_000)
        // A PATCH that stored 50,000 more bytes but failed before its offset was recorded: the retry
        // starts again at 100,000 and the stray bytes are dropped.
        #expect(try await parts.append(chunks(Array(repeating: 0xAA, count: 50_000), size: 8192), to: upload(at: 100_000, length: length), limit: length).offset == 150_000)
        #expect(try await parts.append(chunks(Array(photo[100_000...]), size: 65536), to: upload(at: 100_000, length: length), limit: length).offset == length)
        #expect(Array(try await parts.head(of: upload(at: length, length: length), count: 4).readableBytesView) == Array(photo[..<4]))
        await #expect(throws: PartialAppend.self) { _ = try await parts.append(chunks([1, 2, 3], size: 3), to: upload(at: length, length: length), limit: length) }

        let key = try await parts.complete(upload(at: length, length: length), contentType: "image/jpeg")
        let content = try #require(try await store.read(key, range: ByteRangeRequest?.none))
        var stored: [UInt8] = []
        try await content.body.write { stored += Array($0.readableBytesView) }
        #expect(stored == photo, "byte-identical")
        #expect(!FileManager.default.fileExists(atPath: parts.path("up1")))
        #expect(try await store.list().map { $0.key } == [key], "a part file is never listed as a blob")
        try await parts.discard(upload(at: length, length: length))  // gone already: not an error
    }
}
