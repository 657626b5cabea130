import Foundation
@testable import Imaging
import NIOCore
import SeededRandom
import Testing

extension ImagingTests {
    /// A progressive 4:4:4 JPEG is decoded on two threads, luma and chroma apart, its DC scans of all three
    /// components cut into one per component (`Sources/CVips/progressive_split.c`): the pixels must be the
    /// ones libjpeg gives on one.
    @Suite struct ProgressiveOnTwoThreads {
        /// A fixture decoded at 1/`shrink` scale on two threads (nil when not split), and, for a JPEG, the ordinary way.
        static func decodes(_ fixture: String, shrink: Int) throws -> (split: VipsImageRef?, whole: VipsImageRef?) {
            try Libvips.start()
            let bytes = try PhotoFixtures.bytes(fixture)
            return bytes.withUnsafeReadableBytes { input in
                (VipsImageRef.progressiveJPEGOnTwoThreads(input, shrunkBy: shrink),
                 VipsImageRef.jpegShrunkOnLoad(input, by: shrink)?.copiedToMemory())
            }
        }

        /// libjpeg's scan script (DC scans of all three components, first and refinement), the same with a
        /// restart marker after every row of blocks and after every 3 blocks, and a script with one component
        /// per scan.
        static let splitFixtures = ["progressive.jpg", "progressive-restarts.jpg", "progressive-restarts-3.jpg", "progressive-separate.jpg"]

        /// The bytes of `split` are those of `whole`, with the scale in the message.
        static func expectSamePixels(
            _ split: VipsImageRef, _ whole: VipsImageRef, shrink: Int, _ label: String = "", sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            let scale = "\(label)1/\(shrink)"
            #expect(split.width == whole.width && split.height == whole.height, "\(scale)", sourceLocation: sourceLocation)
            let pixels = try #require(split.pixels(), sourceLocation: sourceLocation)
            let expected = try #require(whole.pixels(), sourceLocation: sourceLocation)
            #expect(pixels.count == expected.count, "\(scale)", sourceLocation: sourceLocation)
            if pixels == expected { return }
            let differing = pixels.indices.filter { $0 < expected.count && pixels[$0] != expected[$0] }
            let (count, first) = (differing.count, differing.first ?? -1)
            #expect(count == 0, "\(scale): \(count) bytes differ, the first at \(first)", sourceLocation: sourceLocation)
        }

        @Test("every pixel the same as one libjpeg decode gives, at 1, 1/2, 1/4 and 1/8 scale; upright; the ICC profile kept",
              arguments: splitFixtures)
        func samePixels(fixture: String) throws {
            for shrink in [1, 2, 4, 8] {
                let (split, ordinary) = try Self.decodes(fixture, shrink: shrink)
                let twoThreads = try #require(split, "1/\(shrink): not split")
                let whole = try #require(ordinary)
                // Stored 1203×805 with Orientation=6: upright it is portrait, in whole pixels of the scale.
                #expect(twoThreads.width == 805 / shrink, "1/\(shrink)")
                #expect(twoThreads.height == 1203 / shrink, "1/\(shrink)")
                #expect(twoThreads.isSRGB8)
                #expect(twoThreads.hasField("icc-profile-data"), "the pipeline converts from it")
                #expect(!twoThreads.hasField("orientation"), "turned upright, as the ordinary loader does")
                try Self.expectSamePixels(twoThreads, whole, shrink: shrink)
            }
        }

        @Test("three components sampled alike but 1×2: split, with the same pixels, when each DC scan carries one component; not when one carries two")
        func sampledAlikeNotOneByOne() throws {
            for shrink in [1, 2, 4, 8] {
                let (split, ordinary) = try Self.decodes("progressive-1x2-separate.jpg", shrink: shrink)
                let twoThreads = try #require(split, "1/\(shrink): not split")
                try Self.expectSamePixels(twoThreads, try #require(ordinary), shrink: shrink)
            }
            // Interleaved, a DC scan's unit holds two blocks of each component: not rewritten.
            #expect(try Self.decodes("progressive-1x2-interleaved.jpg", shrink: 2).split == nil)
        }

        @Test("a file whose coefficients are not all sent is left to the ordinary loader, which smooths such blocks looking at every component at once")
        func incompleteFilesAreNotSplit() async throws {
            for fixture in ["progressive-dc-only.jpg", "progressive-unrefined.jpg"] {
                for shrink in [1, 2] {
                    let (split, ordinary) = try Self.decodes(fixture, shrink: shrink)
                    #expect(split == nil, "\(fixture) at 1/\(shrink)")
                    #expect(ordinary != nil, "\(fixture): the ordinary loader reads it")
                }
                let processed = try await ImageProcessor().processed(try PhotoFixtures.bytes(fixture))
                #expect(processed.probe.width == 805 && processed.probe.height == 1203, "\(fixture)")
            }
        }

        @Test("anything else is left to the ordinary loader: 4:2:0, baseline, CMYK, a file cut short, a damaged DC scan, a Huffman table with more codes than fit, a marker no decoder knows, not a JPEG")
        func othersAreNotSplit() async throws {
            for fixture in ["progressive-420.jpg", "camera.jpg", "cmyk.jpg", "progressive-cut.jpg", "progressive-bad-dc.jpg",
                            "progressive-bad-huffman.jpg", "progressive-unknown-marker.jpg", "photo.webp"] {
                let (split, _) = try Self.decodes(fixture, shrink: 2)
                #expect(split == nil, "\(fixture)")
            }
            // libjpeg refuses the table and the marker too: the upload is refused as unreadable.
            for fixture in ["progressive-bad-huffman.jpg", "progressive-unknown-marker.jpg"] {
                await #expect(throws: ImageError.unreadable, "\(fixture)") {
                    _ = try await ImageProcessor().processed(try PhotoFixtures.bytes(fixture))
                }
            }
        }

        @Test("damaged at random: a file is split only when the ordinary loader reads it too, and then to the same pixels")
        func damagedFiles() throws {
            try Libvips.start()
            // A new seed each run, in every message; `SPLIT_SEED=<seed>` runs a failure again.
            let seed = ProcessInfo.processInfo.environment["SPLIT_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
            var random = SeededGenerator(seed: seed)
            var splitCount = 0
            for fixture in Self.splitFixtures {
                let original = Array(try PhotoFixtures.bytes(fixture).readableBytesView)
                // Half the bytes changed are in the tables, the frame and the first scan's header: from the
                // first table (past the APPn segments: EXIF, the ICC profile) to the first scan's data.
                let marker = { (code: UInt8) in original.indices.dropLast().first { original[$0] == 0xFF && original[$0 + 1] == code } }
                let firstTable = try #require([marker(0xDB), marker(0xC4)].compactMap { $0 }.min())
                let firstScan = try #require(marker(0xDA))
                for attempt in 0..<50 {
                    var bytes = original
                    for _ in 0..<Int.random(in: 1...4, using: &random) {
                        let range = Bool.random(using: &random) ? firstTable..<(firstScan + 16) : 2..<bytes.count
                        bytes[Int.random(in: range, using: &random)] = UInt8.random(in: 0...255, using: &random)
                    }
                    if Int.random(in: 0..<8, using: &random) == 0 {
                        bytes.removeLast(Int.random(in: 1..<bytes.count / 2, using: &random))
                    }
                    let label = "\(fixture), attempt \(attempt), seed \(seed)"
                    try bytes.withUnsafeBytes { input in
                        guard let twoThreads = VipsImageRef.progressiveJPEGOnTwoThreads(input, shrunkBy: 2) else { return }
                        splitCount += 1
                        let whole = try #require(VipsImageRef.jpegShrunkOnLoad(input, by: 2)?.copiedToMemory(), "\(label): split, but the ordinary loader refuses it")
                        try Self.expectSamePixels(twoThreads, whole, shrink: 2, "\(label): ")
                    }
                }
            }
            // Most bytes are a scan's data: a changed one changes coefficients, and libjpeg decodes on.
            #expect(splitCount > 0, "seed \(seed)")
        }

        @Test("through the pipeline: the same renditions as a baseline file of the same coefficients; a cut-short one is refused as cut short")
        func throughThePipeline() async throws {
            // The same coefficients in a baseline file, decoded on one thread.
            let whole = try await ImageProcessor().processed(try PhotoFixtures.bytes("progressive-as-baseline.jpg"))
            for fixture in Self.splitFixtures {
                let split = try await ImageProcessor().processed(try PhotoFixtures.bytes(fixture))
                #expect(split.probe.width == 805 && split.probe.height == 1203)
                for rendition in whole.renditions {
                    #expect(split[rendition.name]?.bytes == rendition.bytes, "\(fixture): \(rendition.name)")
                }
            }
            await #expect(throws: ImageError.truncated) {
                _ = try await ImageProcessor().processed(try PhotoFixtures.bytes("progressive-cut.jpg"))
            }
        }
    }
}
