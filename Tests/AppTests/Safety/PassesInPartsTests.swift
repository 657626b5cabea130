@testable import App
@testable import SelfieCore
import Base64URLCoding
import Foundation
import Testing

@Suite("The sweep and the integrity check in parts: a store too large to hold in memory is gone through by the keys' first characters")
struct PassesInPartsTests {
    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case filesystem, nanio, moto
        var testDescription: String { rawValue }
    }

    /// Three photos (twelve blobs); one loses its original, one a thumbnail, one a byte of its display copy; four blobs without a
    /// row, named from the first, the last and two middle symbols of the alphabet.
    struct Planted {
        let lost: String
        let thin: String
        let rotten: String
        let orphans: Set<BlobKey>
    }

    func plant(_ app: TestApp) async throws -> Planted {
        let owner = app.browser()
        try await owner.signUp(email: uniqueEmail())
        let lost = try await owner.uploadPhoto(TestImage.jpeg(size: 2000, seed: 11), title: "lost original")
        let thin = try await owner.uploadPhoto(TestImage.jpeg(size: 2000, seed: 12), title: "lost thumbnail")
        let rotten = try await owner.uploadPhoto(TestImage.jpeg(size: 2000, seed: 13), title: "a changed byte")
        try await app.blobs.delete(try await app.blobKey(of: lost))
        try await app.blobs.delete(try await app.blobKey(of: thin, rendition: "thumb-400"))
        let display = try await app.blobKey(of: rotten, rendition: "display-2048")
        var bytes = try await app.blobBytes(display)
        bytes[bytes.count / 2] ^= 0x01
        try await app.putBlob(display, bytes)
        var orphans: Set<BlobKey> = []
        for first in ["A", "m", "_", "-"] {
            let random = try #require(BlobKey.random(contentType: "image/jpeg")).value
            let orphan = try #require(BlobKey(first + random.dropFirst()))
            try await app.putBlob(orphan, TestImage.jpeg(size: 500, seed: 14))
            orphans.insert(orphan)
        }
        return Planted(lost: lost, thin: thin, rotten: rotten, orphans: orphans)
    }

    func withApp(on store: Store, _ body: @escaping @Sendable (TestApp) async throws -> Void) async throws {
        let bucket = try await S3Peer(rawValue: store.rawValue)?.makeBucket()
        try await withTestApp(configure: { if let bucket { $0.blobStore = .s3(bucket) } }) { app in try await body(app) }
    }

    @Test("the parts: every first character, in byte order, then every first two past 64 parts' worth", arguments: [1, 7])
    func prefixes(perPart: Int) {
        let firsts = BlobNamePrefixes.covering(blobs: 0, perPart: perPart)
        #expect(firsts.count == 64 && Set(firsts).count == 64 && firsts.allSatisfy { $0.count == 1 })
        #expect(firsts.joined().utf8.allSatisfy { Base64URL.isSymbol($0) })
        #expect(Array(firsts.joined().utf8) == Array(firsts.joined().utf8).sorted(), "byte order")
        #expect(BlobNamePrefixes.covering(blobs: perPart * 64, perPart: perPart) == firsts)
        let seconds = BlobNamePrefixes.covering(blobs: perPart * 64 + 1, perPart: perPart)
        #expect(seconds.count == 4096 && Set(seconds).count == 4096 && Set(seconds.map { String($0.prefix(1)) }) == Set(firsts))
        #expect(BlobNamePrefixes.end(of: "a") == "b" && BlobNamePrefixes.end(of: "z_") == "z`" && BlobNamePrefixes.end(of: "") == "\u{7F}")
    }

    @Test("the sweep finds the orphans and missing blobs, each once, in 64 parts and (filesystem) in 4,096", arguments: Store.allCases)
    func sweep(store: Store) async throws {
        try await withApp(on: store) { app in
            let planted = try await plant(app)
            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            try await core.whileRunning {
                for perPart in [BlobSweeper.blobsPerPart] + (store == .filesystem ? [0] : []) {
                    // "now" two hours ahead: every blob is old enough to be an orphan
                    let report = try await core.sweeper.sweep(now: .now.addingTimeInterval(7200), blobsPerPart: perPart)
                    #expect(report.orphanCount == 4 && Set(report.orphans) == planted.orphans, "\(perPart) per part")
                    #expect(report.rowsMissingBlobCount == 2 && report.rowsMissingBlobs.sorted() == [planted.lost, planted.thin].sorted(), "\(perPart) per part")
                }
            }
            for orphan in planted.orphans { #expect(try await app.blobs.exists(orphan), "the sweep never deletes a blob") }
            #expect(try await app.blobs.list().count == 14)
            // a store lists by any prefix, also one longer than the filesystem's two shard levels:
            // a blob in the same first-level shard folder whose third character differs is not listed
            for orphan in planted.orphans {
                let third = orphan.value.utf8.dropFirst(2).first == UInt8(ascii: "x") ? "y" : "x"
                let sibling = try #require(BlobKey(orphan.value.prefix(2) + third + orphan.value.dropFirst(3)))
                try await app.putBlob(sibling, TestImage.jpeg(size: 500, seed: 15))
                #expect(try await app.blobs.list(namesStartingWith: String(orphan.value.prefix(3))).map(\.key) == [orphan])
                #expect(Set(try await app.blobs.list(namesStartingWith: String(orphan.value.prefix(2))).map(\.key)) == [orphan, sibling])
                try await app.blobs.delete(sibling)
            }
        }
    }

    @Test("the integrity check in 64 parts and (filesystem) in 4,096: each finding once, every present blob's checksum read, the light sample as large as asked; --repair in parts", arguments: Store.allCases)
    func integrity(store: Store) async throws {
        try await withApp(on: store) { app in
            let planted = try await plant(app)
            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            let aside = URL(fileURLWithPath: temporaryBlobDirectory())
            defer { try? FileManager.default.removeItem(at: aside) }
            try await core.whileRunning {
                // 4,096 parts once (the filesystem store: 4,096 S3 listings take long); 64 for the rest.
                var reports = [try await core.integrity.run(.full, orphanGrace: .zero)]
                if store == .filesystem { reports.append(try await core.integrity.run(.full, orphanGrace: .zero, blobsPerPart: 0)) }
                for report in reports {
                    #expect(report.findings.filter { $0.kind == .missingOriginal }.map(\.photo) == [planted.lost])
                    #expect(report.findings.filter { $0.kind == .missingRendition }.map(\.photo) == [planted.thin])
                    #expect(Set(report.findings.filter { $0.kind == .orphan }.map(\.blob)) == Set(planted.orphans.map(\.value)))
                    #expect(report.findings.filter { $0.kind == .corrupt }.map(\.photo) == [planted.rotten])
                    #expect(report.findings.map(\.kind) == [.missingOriginal, .corrupt, .missingRendition] + Array(repeating: .orphan, count: 4), "most serious first")
                    #expect(report.photos == 3 && report.blobs == 14 && report.checksumsVerified == 10)
                }

                let light = try await core.integrity.run(.light(sample: 5), orphanGrace: .zero)
                #expect(light.checksumsVerified == 5, "a sample of present blobs, whatever parts they are in")
                #expect(light.findings.filter { $0.kind != .corrupt }.count == 6)

                let repaired = try await core.integrity.run(.full, orphanGrace: .zero, repairInto: aside)
                #expect(repaired.unresolved.map(\.kind) == [.missingOriginal], "\(repaired.unresolved)")
                #expect(try await app.blobs.exists(try await app.blobKey(of: planted.thin, rendition: "thumb-400")), "remade")
                #expect(repaired.findings.filter { $0.kind == .corrupt }.map { $0.repaired } == [true], "the changed display copy made again")
                #expect(try await core.integrity.run(.full, orphanGrace: .zero).findings.map(\.kind) == [.missingOriginal])
                for orphan in planted.orphans {
                    #expect(try await app.blobs.exists(orphan) == false)
                    #expect(FileManager.default.fileExists(atPath: aside.appendingPathComponent(orphan.value).path))
                }
            }
        }
    }
}
