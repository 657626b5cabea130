@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

extension TestApp {
    /// The blob key of a photo's original (`rendition` nil) or of one of its renditions.
    func blobKey(of publicID: String, rendition: String? = nil) async throws -> BlobKey {
        let key: String = if let rendition {
            try await scalar(
                "SELECT r.blob_key FROM photo_renditions r JOIN photos p ON p.id = r.photo_id WHERE p.public_id = \(publicID) AND r.name = \(rendition)"
            )
        } else {
            try await scalar("SELECT blob_key FROM photos WHERE public_id = \(publicID)")
        }
        return try #require(BlobKey(key))
    }

    /// A blob's bytes, straight from the store.
    func blobBytes(_ key: BlobKey) async throws -> [UInt8] {
        let content = try #require(try await blobs.read(key, range: nil))
        var bytes: [UInt8] = []
        try await content.body.write { bytes += Array($0.readableBytesView) }
        return bytes
    }

    /// Writes `bytes` under `key`, replacing what is there (as a disk's bit rot or an operator would).
    func putBlob(_ key: BlobKey, _ bytes: [UInt8]) async throws {
        let writer = try await blobs.makeWriter(for: key)
        try await writer.write(ByteBuffer(bytes: bytes))
        try await writer.commit()
    }
}

@Suite("The integrity check: rows against blobs, and what --repair can fix")
struct IntegrityTests {
    @Test("--repair goes on past a photo whose renditions cannot be made again (its original no longer decodes): that one stays unresolved, the orphan is still moved, the check is saved")
    func repairPastAnUnmakeablePhoto() async throws {
        try await withTestApp { app in
            let owner = app.browser()
            try await owner.signUp(email: uniqueEmail())
            let broken = try await owner.uploadPhoto(TestImage.jpeg(size: 3000, seed: 7), title: "no longer decodes")
            try await app.blobs.delete(try await app.blobKey(of: broken, rendition: "thumb-400"))
            // The original's bytes turn to garbage before any checksum was recorded (a photo from
            // before checksums): the check records the garbage's, so only the rendition is missing.
            try await app.putBlob(try await app.blobKey(of: broken), Array(repeating: 0x42, count: 5000))
            try await app.db { try await $0.query("UPDATE photos SET sha256 = NULL WHERE public_id = \(broken)") }
            let orphan = try #require(BlobKey.random(contentType: "image/jpeg"))
            try await app.putBlob(orphan, TestImage.jpeg(size: 1000, seed: 8))

            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            let aside = URL(fileURLWithPath: temporaryBlobDirectory())
            defer { try? FileManager.default.removeItem(at: aside) }
            try await core.whileRunning {
                let repaired = try await core.integrity.run(.full, orphanGrace: .zero, repairInto: aside)
                #expect(repaired.unresolved.map(\.kind) == [.missingRendition], "\(repaired.findings)")
                #expect(try await app.blobs.exists(orphan) == false, "the orphan after it was still moved aside")
                let saved = try await core.integrity.lastChecks()
                #expect(saved.contains { $0.findingCount == 2 }, "and the check was saved for the admin page")
            }
        }
    }

    @Test("race: --repair leaves a blob whose row committed after it was found without one (an upload finishing during a long check): it is not an orphan any more")
    func repairLooksAgainBeforeMovingAside() async throws {
        try await withTestApp { app in
            let owner = app.browser()
            try await owner.signUp(email: uniqueEmail())
            let slow = try await owner.uploadPhoto(TestImage.jpeg(size: 1000, seed: 11))
            let finishing = try await owner.uploadPhoto(TestImage.jpeg(size: 1000, seed: 12))
            // A photo from before checksums: the check records its checksum after finding the orphans.
            try await app.db { try await $0.query("UPDATE photos SET sha256 = NULL WHERE public_id = \(slow)") }
            // Named to be in the check's first part ("-" sorts first), so it is listed, and found
            // without a row, before the check comes to `slow`'s checksum, whatever part that is in.
            let random = try #require(BlobKey.random(contentType: "image/jpeg"))
            let late = try #require(BlobKey("-" + random.value.dropFirst()))
            try await app.putBlob(late, TestImage.jpeg(size: 1000, seed: 13))

            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            let aside = URL(fileURLWithPath: temporaryBlobDirectory())
            defer { try? FileManager.default.removeItem(at: aside) }
            let report = try await core.whileRunning {
                let check = try await app.db { client in
                    try await client.transaction(logger: testLogger) { connection in
                        try await connection.query("SELECT id FROM photos WHERE public_id = \(slow) FOR UPDATE", logger: testLogger)
                        let check = Task { try await core.integrity.run(.full, orphanGrace: .zero, repairInto: aside) }
                        // The check has listed the store and found `late` without a row; it waits to
                        // record a checksum while the upload's row for `late` commits.
                        try await TestApp.untilSomeoneWaitsForALock(client)
                        try await connection.query(
                            """
                            INSERT INTO photos (public_id, user_id, blob_key, content_type, byte_size)
                            SELECT 'finished-upload-' || md5(random()::text), user_id, \(late.value), 'image/jpeg', 1000 FROM photos WHERE public_id = \(finishing)
                            """,
                            logger: testLogger
                        )
                        return check
                    }
                }
                return try await check.value
            }
            #expect(try await app.blobs.exists(late), "the photo's blob is still in the store")
            #expect(!report.findings.contains { $0.kind == .orphan && $0.repaired }, "\(report.findings)")
            #expect(report.findingCount == report.findings.count, "the blob a photo adopted is not counted either")
            #expect(try await owner.get("/photos/\(finishing)/original").status == .ok)
        }
    }

    @Test("a deleted original, a deleted rendition, a changed byte and an orphan are each found with the photo and its owner; --repair fixes renditions and moves the orphan aside; with the original back, the next check is clean")
    func plantedFaults() async throws {
        try await withTestApp { app in
            let owner = app.browser()
            let email = uniqueEmail()
            try await owner.signUp(email: email)
            let lost = try await owner.uploadPhoto(TestImage.jpeg(size: 3000, seed: 1), title: "lost original")
            let thin = try await owner.uploadPhoto(TestImage.jpeg(size: 3000, seed: 2), title: "lost thumbnail")
            let rotten = try await owner.uploadPhoto(TestImage.jpeg(size: 3000, seed: 3), title: "changed byte")
            #expect(try await app.scalar("SELECT count(*)::int FROM photos WHERE sha256 IS NULL") == 0, "checksums are recorded at upload")
            #expect(try await app.scalar("SELECT count(*)::int FROM photo_renditions WHERE sha256 IS NULL") == 0)

            let original = try await app.blobKey(of: lost)
            let saved = try await app.blobBytes(original)
            try await app.blobs.delete(original)
            let thumbnail = try await app.blobKey(of: thin, rendition: "thumb-400")
            try await app.blobs.delete(thumbnail)
            let display = try await app.blobKey(of: rotten, rendition: "display-2048")
            var bytes = try await app.blobBytes(display)
            bytes[bytes.count / 2] ^= 0x01
            try await app.putBlob(display, bytes)
            let orphan = try #require(BlobKey.random(contentType: "image/jpeg"))
            try await app.putBlob(orphan, TestImage.jpeg(size: 1000, seed: 4))

            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            let aside = URL(fileURLWithPath: temporaryBlobDirectory())
            defer { try? FileManager.default.removeItem(at: aside) }
            try await core.whileRunning {
                let found = try await core.integrity.run(.full, orphanGrace: .zero)
                let byKind = Dictionary(grouping: found.findings, by: \.kind)
                #expect(found.findings.count == 4, "\(found.findings)")
                #expect(byKind[.missingOriginal]?.map(\.photo) == [lost])
                #expect(byKind[.missingRendition]?.map(\.photo) == [thin] && byKind[.missingRendition]?.first?.rendition == "thumb-400")
                #expect(byKind[.corrupt]?.map(\.photo) == [rotten] && byKind[.corrupt]?.first?.blob == display.value)
                #expect(byKind[.orphan]?.map(\.blob) == [orphan.value] && byKind[.orphan]?.first?.photo == nil)
                #expect(found.findings.filter { $0.kind != .orphan }.allSatisfy { $0.owner == email })
                #expect(try IntegrityFindingText.english([byKind[.missingOriginal]![0]], paths: ResourcePaths(root: repositoryRoot))[0].contains("photo \(lost) of \(email)"))

                let repaired = try await core.integrity.run(.full, orphanGrace: .zero, repairInto: aside)
                #expect(repaired.unresolved.map(\.kind) == [.missingOriginal], "only a lost original needs the backup")
                #expect(try await app.blobs.exists(orphan) == false, "the orphan left the store…")
                #expect(FileManager.default.contents(atPath: aside.appendingPathComponent(orphan.value).path).map(Array.init) == TestImage.jpeg(size: 1000, seed: 4), "…for the folder aside, whole")
                #expect(try await app.blobKey(of: thin, rendition: "thumb-400") != thumbnail, "the renditions were made again")

                // The operator puts the original back from a backup: the next check is clean.
                try await app.putBlob(original, saved)
                let clean = try await core.integrity.run(.full, orphanGrace: .zero)
                #expect(clean.findings.isEmpty, "\(clean.findings)")
                #expect(clean.checksumsVerified == 12)
            }
            for id in [thin, rotten] {
                let page = try await owner.get("/photos/\(id)").text
                let image = try #require(page.firstMatch(of: /<img[^>]+src="([^"]+)"/)?.1)
                #expect(try await owner.get(String(image).replacingOccurrences(of: "&amp;", with: "&")).status == .ok)
            }
            let admin = try await app.signedInAdmin()
            let integrity = try await admin.get("/admin/integrity").text
            #expect(integrity.contains("Full check (selfie check)") && integrity.contains("Everything was in order."))
        }
    }

    @Test("a check that only reports keeps so many findings of each kind and counts the rest (millions of orphans are not held in the server); the most serious are never crowded out; a repair keeps every one")
    func findingsKeptPerKind() async throws {
        try await withTestApp { app in
            let owner = app.browser()
            try await owner.signUp(email: uniqueEmail())
            let lost = try await owner.uploadPhoto(TestImage.jpeg(size: 3000, seed: 1), title: "lost original")
            try await app.blobs.delete(try await app.blobKey(of: lost))
            var orphans: [BlobKey] = []
            for seed in 0..<5 {
                let orphan = try #require(BlobKey.random(contentType: "image/jpeg"))
                try await app.putBlob(orphan, TestImage.jpeg(size: 500, seed: UInt64(10 + seed)))
                orphans.append(orphan)
            }
            let planted = orphans
            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            let aside = URL(fileURLWithPath: temporaryBlobDirectory())
            defer { try? FileManager.default.removeItem(at: aside) }
            try await core.whileRunning {
                let found = try await core.integrity.run(.light(sample: 0), orphanGrace: .zero, findingsKeptPerKind: 2)
                #expect(found.findingCount == 6)
                #expect(found.findings.map(\.kind) == [.missingOriginal, .orphan, .orphan], "\(found.findings)")
                let saved: Int = try await app.scalar("SELECT finding_count FROM integrity_checks WHERE kind = 'light'")
                #expect(saved == 6, "the admin page counts all of them")

                let repaired = try await core.integrity.run(.full, orphanGrace: .zero, repairInto: aside, findingsKeptPerKind: 2)
                #expect(repaired.findings.filter { $0.kind == .orphan }.count == 5, "a repair needs each")
                for orphan in planted { #expect(try await app.blobs.exists(orphan) == false) }
            }
            let admin = try await app.signedInAdmin()
            #expect(try await admin.get("/admin/integrity").status == .ok)
        }
    }

    @Test("the first full check records checksums of older blobs; the light check counts and samples; a young blob without a row is an upload in flight")
    func olderBlobsAndLightCheck() async throws {
        try await withTestApp { app in
            let owner = app.browser()
            try await owner.signUp(email: uniqueEmail())
            let id = try await owner.uploadPhoto(TestImage.jpeg(size: 3000, seed: 5))
            try await app.db { try await $0.query("UPDATE photos SET sha256 = NULL WHERE public_id = \(id)") }
            try await app.db { try await $0.query("UPDATE photo_renditions SET sha256 = NULL") }
            let young = try #require(BlobKey.random(contentType: "image/jpeg"))
            try await app.putBlob(young, TestImage.jpeg(size: 1000, seed: 6))
            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            try await core.whileRunning {
                let light = try await core.integrity.run(.light(sample: 20))
                #expect(light.findings.isEmpty, "an hour's grace: the new blob is an upload in flight")
                #expect(light.checksumsVerified == 0 && light.checksumsRecorded == 0, "the light check records nothing")
                let full = try await core.integrity.run(.full)
                #expect(full.checksumsRecorded == 4 && full.findings.isEmpty)
                #expect(try await app.scalar("SELECT count(*)::int FROM photo_renditions WHERE sha256 IS NULL") == 0)
                try await app.blobs.delete(try await app.blobKey(of: id, rendition: "thumb-800"))
                let sampled = try await core.integrity.run(.light(sample: 2))
                #expect(sampled.checksumsVerified == 2)
                #expect(sampled.findings.map(\.kind) == [.missingRendition])
                let stored = try await core.integrity.lastChecks()
                #expect(Set(stored.map(\.kind)) == [.full, .light] && stored.first { $0.kind == .light }?.findingCount == 1)
            }
        }
    }
}
