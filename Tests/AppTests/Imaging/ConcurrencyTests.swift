import Dispatch
import Imaging
import NIOCore
import Synchronization
import Testing

extension ImagingTests {
    @Suite struct Concurrency {
        @Test func concurrentCallsGiveTheSameBytesAsOneAtATime() async throws {
            let uploads = try ["camera.jpg", "photo.heic", "alpha.png", "cmyk.jpg", "animated.gif", "large.jpg"]
                .map { try PhotoFixtures.bytes($0) }
            let processor = ImageProcessor()
            var expected: [[ByteBuffer]] = []
            for upload in uploads { expected.append(try await processor.processed(upload).renditions.map(\.bytes)) }

            let results = Mutex<[Int: [ByteBuffer]]>([:])
            // Each upload twice, on as many threads as the machine runs at once.
            try await OffThread.run { DispatchQueue.concurrentPerform(iterations: uploads.count * 2) { iteration in
                let index = iteration % uploads.count
                let bytes = (try? processor.process(uploads[index]))?.renditions.map(\.bytes) ?? []
                results.withLock { finished in
                    if iteration >= uploads.count { finished[index] = bytes } else { finished[-1 - index] = bytes }
                }
            } }
            let finished = results.withLock { $0 }
            for index in uploads.indices {
                #expect(finished[index] == expected[index], "upload \(index), second round")
                #expect(finished[-1 - index] == expected[index], "upload \(index), first round")
            }
        }
    }
}
