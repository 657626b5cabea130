import Foundation
import Imaging
import NIOCore
import Testing

extension ImagingTests {
    @Suite struct MetadataStripping {
        /// Uploads carrying GPS, serial numbers, owner names, XMP, IPTC, comments and ICC profiles, in every
        /// accepted format; with the standard set this exercises both savers (WebP and JPEG).
        static let uploadsWithMetadata = [
            "camera.jpg", "photo.heic", "alpha.png", "cmyk.jpg", "photo.webp", "swapped-icc.jpg", "deep.png",
            "animated.gif", "large.jpg",
        ]

        @Test func noRenditionCarriesExifGpsXmpIptcOrIcc() async throws {
            let folder = try OutputFolder()
            defer { folder.remove() }
            var files: [URL] = []
            for upload in Self.uploadsWithMetadata {
                let processed = try await ImageProcessor().processed(try PhotoFixtures.bytes(upload))
                for rendition in processed.renditions {
                    let suffix = rendition.mimeType == "image/webp" ? "webp" : "jpg"
                    files.append(try folder.write(rendition.bytes, as: "\(upload)-\(rendition.name).\(suffix)"))
                }
            }
            #expect(Set(files.map(\.pathExtension)) == ["webp", "jpg"])

            let records = try await ExifTool.read(files)
            #expect(records.count == files.count)
            for record in records {
                let file = record["SourceFile"] as? String ?? "?"
                let forbidden = Set(record.keys).subtracting(ExifTool.allowedTags)
                #expect(forbidden.isEmpty, "\(file) still carries \(forbidden.sorted())")
                let flags = record["RIFF:WebP_Flags"] as? String ?? ""
                #expect(!flags.contains("EXIF") && !flags.contains("XMP") && !flags.contains("ICC"), "\(file): \(flags)")
            }
        }

        @Test func thePrivateValuesAreNowhereInTheBytes() async throws {
            for upload in ["camera.jpg", "photo.heic", "photo.webp", "alpha.png"] {
                let original = try PhotoFixtures.bytes(upload)
                // The fixture really does carry them, somewhere in its bytes.
                #expect(Self.contains(original, "Jane Doe"), "fixture \(upload) lost its metadata")
                for rendition in try await ImageProcessor().processed(original).renditions {
                    for secret in ["SECRET", "Jane Doe", "Paris", "private comment", "home address", "Canon"] {
                        #expect(!Self.contains(rendition.bytes, secret), "\(upload) \(rendition.name) has \(secret)")
                    }
                }
            }
        }

        private static func contains(_ buffer: ByteBuffer, _ text: String) -> Bool {
            let needle = Array(text.utf8)
            let haystack = Array(buffer.readableBytesView)
            guard haystack.count >= needle.count else { return false }
            return (0...(haystack.count - needle.count)).contains { start in
                haystack[start..<start + needle.count].elementsEqual(needle)
            }
        }
    }
}
