import Foundation
import Imaging
import NIOCore
import Testing

extension ImagingTests {
    @Suite struct Geometry {
        @Test func exifOrientationSixMakesPortraitRenditionsTurnedClockwise() async throws {
            // Stored 1200x800 with a red top-left quadrant, tagged "rotate 90° clockwise".
            let processed = try await ImageProcessor().processed(try PhotoFixtures.bytes("camera.jpg"))
            #expect(processed.probe == ImageProbe(format: .jpeg, width: 800, height: 1200, frameCount: 1, takenAt: ImagingTests.fixtureTakenAt, takenAtIsLocalTime: true))
            #expect(Self.sizes(processed) == [
                "thumb-400": [267, 400], "thumb-800": [533, 800], "display-2048": [800, 1200],
            ])

            let folder = try OutputFolder()
            defer { folder.remove() }
            let thumbnail = try folder.write(processed["thumb-400"]!.bytes, as: "thumb.webp")
            let display = try folder.write(processed["display-2048"]!.bytes, as: "display.jpg")
            // Turned clockwise, the red quadrant is now at the top right.
            let decoded = try await Pillow.decode([
                (thumbnail, [(250, 20), (20, 20), (250, 380)]),
                (display, [(780, 40), (20, 40)]),
            ])
            #expect(decoded[0].width == 267 && decoded[0].height == 400)
            #expect(Self.isRed(decoded[0].pixels[0]))
            #expect(!Self.isRed(decoded[0].pixels[1]) && !Self.isRed(decoded[0].pixels[2]))
            #expect(Self.isRed(decoded[1].pixels[0]) && !Self.isRed(decoded[1].pixels[1]))
        }

        @Test func aLargeJpegFitsEveryBoxAndIsDecodedAtReducedScale() async throws {
            // 4000x2000 tagged Orientation=6: upright 2000x4000.
            let processed = try await ImageProcessor().processed(try PhotoFixtures.bytes("large.jpg"))
            #expect(processed.probe.width == 2000 && processed.probe.height == 4000)
            #expect(processed["thumb-400"].map { [$0.width, $0.height] } == [200, 400])
            #expect(processed["thumb-800"].map { [$0.width, $0.height] } == [400, 800])
            let display = try #require(processed["display-2048"])
            // ≤ 2048 on the long edge, at most 5% under it (libjpeg's 1/2 scale gives 1000x2000), portrait.
            #expect(display.height <= 2048 && display.height >= 1946)
            #expect(abs(display.width * 2 - display.height) <= 2)
            #expect(display.mimeType == "image/jpeg")

            let folder = try OutputFolder()
            defer { folder.remove() }
            let decoded = try await Pillow.decode(try folder.write(display.bytes, as: "display.jpg"))
            #expect(decoded.width == display.width && decoded.height == display.height)
        }

        @Test func smallImagesAreNeverUpscaled() async throws {
            let processed = try await ImageProcessor().processed(try PhotoFixtures.bytes("small.jpg"))
            for rendition in processed.renditions {
                #expect(rendition.width == 300 && rendition.height == 200, "\(rendition.name)")
            }
            // The same pixels in the same format are encoded once.
            #expect(processed["thumb-400"]!.bytes == processed["thumb-800"]!.bytes)
        }

        @Test func renditionsHaveTheirFormatsAndMimeTypes() async throws {
            let processed = try await ImageProcessor().processed(try PhotoFixtures.bytes("medium.jpg"))
            #expect(processed.renditions.map(\.name) == ["thumb-400", "thumb-800", "display-2048"])
            #expect(processed.renditions.map(\.mimeType) == ["image/webp", "image/webp", "image/jpeg"])

            let folder = try OutputFolder()
            defer { folder.remove() }
            let files = try processed.renditions.map { try folder.write($0.bytes, as: $0.name) }
            let records = try await ExifTool.read(files)
            #expect(records.map { $0["File:MIMEType"] as? String } == ["image/webp", "image/webp", "image/jpeg"])
            #expect((records[2]["File:EncodingProcess"] as? String)?.hasPrefix("Progressive DCT") == true)
        }

        @Test func aCustomRenditionSetIsMadeInItsOwnOrder() async throws {
            let set = RenditionSet([
                RenditionSpec(name: "tiny", longEdge: 64, format: .progressiveJPEG(quality: 70)),
                RenditionSpec(name: "mid", longEdge: 300, format: .webp(quality: 75)),
            ])
            let processed = try await ImageProcessor(renditions: set).processed(try PhotoFixtures.bytes("camera.jpg"))
            #expect(processed.renditions.map(\.name) == ["tiny", "mid"])
            #expect(Self.sizes(processed) == ["tiny": [43, 64], "mid": [200, 300]])
        }

        @Test func probeReadsDimensionsAndFramesWithoutDecoding() async throws {
            let processor = ImageProcessor()
            // Their cameras wrote no offset: a local time, read as if UTC.
            #expect(try processor.probe(PhotoFixtures.bytes("camera.jpg")) == ImageProbe(
                format: .jpeg, width: 800, height: 1200, frameCount: 1, takenAt: ImagingTests.fixtureTakenAt, takenAtIsLocalTime: true))
            #expect(try processor.probe(PhotoFixtures.bytes("photo.heic")) == ImageProbe(
                format: .heic, width: 1200, height: 800, frameCount: 1, takenAt: ImagingTests.fixtureTakenAt, takenAtIsLocalTime: true))
            // With its offset: a moment.
            let taken2019 = try processor.probe(PhotoFixtures.bytes("taken-2019.jpg"))
            #expect(taken2019.takenAt == ISO8601DateFormatter().date(from: "2019-05-01T08:00:00Z") && !taken2019.takenAtIsLocalTime)
            #expect(try processor.probe(PhotoFixtures.bytes("animated.gif")) == ImageProbe(
                format: .gif, width: 240, height: 160, frameCount: 3))
            #expect(try processor.probe(PhotoFixtures.bytes("animated.webp")) == ImageProbe(
                format: .webp, width: 240, height: 160, frameCount: 3))
            #expect(try processor.probe(PhotoFixtures.bytes("alpha.png")).format == .png)
        }

        static func sizes(_ processed: ProcessedImage) -> [String: [Int]] {
            Dictionary(uniqueKeysWithValues: processed.renditions.map { ($0.name, [$0.width, $0.height]) })
        }

        static func isRed(_ pixel: [Int]) -> Bool {
            pixel.count >= 3 && pixel[0] > 180 && pixel[1] < 70 && pixel[2] < 70
        }
    }
}
