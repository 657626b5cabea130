import Foundation
import Imaging
import NIOCore
import Testing

extension ImagingTests {
    @Suite struct ColourAndFormat {
        /// Writes the upload's renditions and decodes each with Pillow at the given points.
        private func decodedRenditions(
            of upload: String, at points: [(Int, Int)]
        ) async throws -> (ProcessedImage, [String: Decoded]) {
            let processed = try await ImageProcessor().processed(try PhotoFixtures.bytes(upload))
            let folder = try OutputFolder()
            defer { folder.remove() }
            let files = try processed.renditions.map { try folder.write($0.bytes, as: $0.name) }
            let decoded = try await Pillow.decode(files.map { ($0, points) })
            // Every check of a test below runs over these: none may be missing (or the loops check nothing).
            #expect(Set(processed.renditions.map(\.name)) == ["thumb-400", "thumb-800", "display-2048"] && decoded.count == 3)
            return (processed, Dictionary(uniqueKeysWithValues: zip(processed.renditions.map(\.name), decoded)))
        }

        @Test func heicBecomesViewableJpegAndWebp() async throws {
            let (processed, decoded) = try await decodedRenditions(of: "photo.heic", at: [(5, 5), (395, 260)])
            #expect(processed.probe.format == .heic)
            #expect(decoded["display-2048"]?.mode == "RGB")
            #expect([decoded["display-2048"]?.width, decoded["display-2048"]?.height] == [1200, 800])
            #expect([decoded["thumb-400"]?.width, decoded["thumb-400"]?.height] == [400, 267])
            // The red top-left quadrant of the source survives the HEVC round trip.
            for (name, image) in decoded {
                #expect(Geometry.isRed(image.pixels[0]), "\(name): \(image.pixels[0])")
            }
        }

        @Test func avifIsRecognisedAndDecoded() async throws {
            let (processed, decoded) = try await decodedRenditions(of: "red.avif", at: [(150, 100)])
            #expect(processed.probe == ImageProbe(format: .avif, width: 300, height: 200, frameCount: 1))
            for (name, image) in decoded {
                #expect(Geometry.isRed(image.pixels[0]), "\(name): \(image.pixels[0])")
            }
        }

        @Test func alphaIsKeptInWebpAndFlattenedOnWhiteInJpeg() async throws {
            // Left half transparent black, right half opaque red.
            let (_, decoded) = try await decodedRenditions(of: "alpha.png", at: [(10, 10), (390, 10)])
            let webp = try #require(decoded["thumb-400"])
            #expect(webp.mode == "RGBA")
            #expect(webp.pixels[0][3] == 0)
            #expect(webp.pixels[1][3] == 255 && Geometry.isRed(webp.pixels[1]))
            let jpeg = try #require(decoded["display-2048"])
            #expect(jpeg.mode == "RGB")
            #expect(jpeg.pixels[0].allSatisfy { $0 >= 250 }, "transparent must become white: \(jpeg.pixels[0])")
            #expect(Geometry.isRed(jpeg.pixels[1]))
        }

        @Test func cmykJpegBecomesEightBitSRGB() async throws {
            // CMYK (0, 255, 255, 0): magenta + yellow ink, i.e. red.
            let (processed, decoded) = try await decodedRenditions(of: "cmyk.jpg", at: [(10, 10)])
            #expect(processed.probe.format == .jpeg)
            for (name, image) in decoded {
                #expect(image.mode == "RGB", "\(name)")
                #expect(Geometry.isRed(image.pixels[0]), "\(name): \(image.pixels[0])")
            }
        }

        @Test func sixteenBitPngBecomesEightBit() async throws {
            // Every source pixel is (65535, 32768, 0): about (255, 128, 0) in 8 bits.
            let (_, decoded) = try await decodedRenditions(of: "deep.png", at: [(10, 10)])
            for (name, image) in decoded {
                #expect(image.mode == "RGB", "\(name)")
                let pixel = image.pixels[0]
                #expect(pixel[0] >= 250 && abs(pixel[1] - 128) <= 4 && pixel[2] <= 6, "\(name): \(pixel)")
            }
        }

        @Test func aNonSRGBProfileIsConvertedBeforeItIsDropped() async throws {
            // Stored (255, 0, 0) under a profile whose "red" primary is sRGB's blue: the colour is blue.
            let (_, decoded) = try await decodedRenditions(of: "swapped-icc.jpg", at: [(10, 10)])
            for (name, image) in decoded {
                let pixel = image.pixels[0]
                #expect(pixel[2] > 200 && pixel[0] < 40 && pixel[1] < 40, "\(name) is not blue: \(pixel)")
            }
        }

        @Test(arguments: ["animated.gif", "animated.webp"])
        func animationsKeepTheirFirstFrameOnly(upload: String) async throws {
            // Frames are red, green, blue.
            let (processed, decoded) = try await decodedRenditions(of: upload, at: [(10, 10), (200, 150)])
            #expect(processed.probe.frameCount == 3)
            for (name, image) in decoded {
                #expect(image.frames == 1, "\(name)")
                #expect(image.width == 240 && image.height == 160, "\(name)")
                #expect(Geometry.isRed(image.pixels[0]) && Geometry.isRed(image.pixels[1]), "\(name)")
            }
        }
    }
}
