@testable import App
import CProcessControl
@testable import SelfieCore
import Foundation
import NIOCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The image pipeline runs in `selfie-image-worker` processes: a worker that dies, crashes or hangs
/// on a photo costs that one upload, and the next upload gets a fresh worker.
@Suite("Image workers")
struct ImageWorkerTests {
    /// The real worker under a name of its own, so this test finds its workers among every test's.
    /// A `held` one is a shell script that stops itself the first time it is started, before it
    /// becomes the worker (`exec -a`, same process): a test can signal it while the photo waits in its
    /// pipe, and it cannot have answered first however slow the machine is. Later starts go straight on.
    struct NamedWorker {
        let path: String

        init(held: Bool = false) throws {
            let folder = NSTemporaryDirectory() + "selfie-workers/\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            path = folder + "/selfie-image-worker"
            let real = ImageWorkerSettings().resolvedExecutable
            guard held else {
                try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: real)
                return
            }
            // Builtins only: the worker is started with an empty environment (no PATH).
            let script = """
                #!/bin/bash
                if [ ! -e "$0.held" ]; then : > "$0.held"; kill -STOP $$; fi
                exec -a "$0" '\(real)' "$@"

                """
            try script.write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        }

        /// Process ids of running workers started from this path.
        func running() -> [pid_t] {
            let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return processes.compactMap { entry in
                guard let pid = pid_t(entry),
                      let commandLine = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                      let first = commandLine.split(separator: 0).first,
                      String(decoding: first, as: UTF8.self) == path,
                      // a worker already reaped leaves no stat; a zombie ("Z") is not running
                      let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                      !stat.contains(") Z ")
                else { return nil }
                return pid
            }
        }

        /// The held worker's process once it has stopped itself, before it read anything.
        func held(within timeout: Duration = .seconds(20)) async throws -> pid_t {
            let deadline = ContinuousClock.now.advanced(by: timeout)
            while ContinuousClock.now < deadline {
                let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
                for entry in processes {
                    guard let pid = pid_t(entry),
                          let commandLine = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                          // the shell running the script: /bin/bash <path> <arguments>
                          commandLine.split(separator: 0).dropFirst().first.map({ String(decoding: $0, as: UTF8.self) }) == path,
                          let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                          stat.contains(") T ")
                    else { continue }
                    return pid
                }
                try await Task.sleep(for: .milliseconds(1))
            }
            throw TestSetupError("no worker of \(path) stopped itself")
        }
    }

    /// Starts an upload of a HEIC, does `toWorker` to its worker while it is held (stopped, the photo
    /// in its pipe), and returns the upload's answer; then checks nothing was kept and that the next
    /// upload (a fresh worker, not held) works.
    func upload(
        settings: @escaping @Sendable (inout ImageWorkerSettings) -> Void = { _ in },
        doing toWorker: @escaping @Sendable (pid_t) -> Void
    ) async throws -> (status: Int, message: String, after: Duration) {
        let worker = try NamedWorker(held: true)
        return try await withTestApp(configure: { config in
            config.blobStore = .filesystem(directory: temporaryBlobDirectory())
            config.imageWorkers.executable = worker.path
            settings(&config.imageWorkers)
        }) { app in
            let token = try await app.api.signedInUser()
            let heic = try Array(PhotoFixtures.bytes("photo.heic").readableBytesView)
            async let answer = app.api.uploadPhoto(token: token, image: heic, title: "mid-photo")
            toWorker(try await worker.held())
            let done = ContinuousClock.now
            let refused = try await answer.apiError()
            let after = ContinuousClock.now - done

            #expect(try await app.photoCount() == 0)
            #expect(app.filesInBlobStore().isEmpty, "\(app.filesInBlobStore())")
            let retried = try await app.api.uploadPhoto(token: token, image: heic, title: "again")
            #expect(retried.status == .ok, "\(retried.text)")
            #expect(try await app.photoCount() == 1)
            return (refused.status, refused.message, after)
        }
    }

    @Test("a worker killed mid-photo fails that upload with 503 and leaves nothing; the next upload gets a new worker")
    func killedWorker() async throws {
        let refused = try await upload { kill($0, SIGKILL) }
        #expect(refused.status == 503)
        #expect(refused.message == "The photo could not be processed just now. Please try again in a moment.")
    }

    @Test("a photo decoded whole (HEIC, GIF, an interlaced PNG: a 400 KB one of 64 MP took a worker 445 MB) takes every turn, so one is decoded at a time; JPEG, WebP and a plain PNG, decoded row by row, one turn each")
    func decodedWholeTakesEveryTurn() async throws {
        let store = try FileBlobStore(
            root: temporaryBlobDirectory(),
            signer: MediaURLSigner(secretKey: try SecretKey("test-secret-key-that-is-long-enough-0123456789"), publicURL: URL(string: "http://localhost")!)
        )
        func weight(_ type: String, _ bytes: [UInt8]) async throws -> Int {
            let key = try #require(BlobKey.random(contentType: type))
            let writer = try await store.makeWriter(for: key)
            try await writer.write(ByteBuffer(bytes: bytes))
            try await writer.commit()
            return await RenditionMaker.weight(of: key, in: store)
        }
        let plain = TestImage.png()
        #expect(plain[28] == 0, "the test PNG is not interlaced")
        var interlaced = plain
        interlaced[28] = 1  // IHDR's interlace method: Adam7
        let all = System.coreCount
        let cases: [(String, String, [UInt8], Int)] = [
            ("plain PNG", "image/png", plain, 1), ("interlaced PNG", "image/png", interlaced, all),
            ("a PNG cut inside its header", "image/png", Array(plain.prefix(20)), all),
            ("HEIC", "image/heic", TestImage.jpeg(), all), ("GIF", "image/gif", TestImage.jpeg(), all),
            ("JPEG", "image/jpeg", TestImage.jpeg(), 1), ("WebP", "image/webp", TestImage.jpeg(), 1),
        ]
        for (name, type, bytes, turns) in cases {
            #expect(try await weight(type, bytes) == turns, "\(name)")
        }
        #expect(await RenditionMaker.weight(of: try #require(BlobKey.random(contentType: "image/png")), in: store) == all, "a PNG that cannot be read")
    }

    @Test(
        "a worker that died while idle (SIGKILL: the kernel's OOM killer) or was ended (SIGTERM: an operator's kill, though the server ignores SIGTERM for its graceful shutdown and an ignored signal stays ignored across exec) is replaced at the next upload, which goes through",
        arguments: [SIGKILL, SIGTERM]
    )
    func idleWorkerEnded(by signalSent: Int32) async throws {
        let worker = try NamedWorker()
        // What ServiceLifecycle does in the server, so that its own handler sees the signal.
        let previous = signal(SIGTERM, SIG_IGN)
        defer { signal(SIGTERM, previous) }
        try await withTestApp(configure: { config in
            config.blobStore = .filesystem(directory: temporaryBlobDirectory())
            config.imageWorkers.executable = worker.path
        }) { app in
            let token = try await app.api.signedInUser()
            #expect(try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(), title: "first").status == .ok)
            let idle = worker.running()
            #expect(idle.count == 1, "one worker waits for the next photo")
            for pid in idle { kill(pid, signalSent) }
            for _ in 0..<300 where !worker.running().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            #expect(worker.running().isEmpty, "the worker ended")

            let next = try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(seed: 2), title: "second")
            #expect(next.status == .ok, "\(next.status) \(next.text)")
            #expect(try await app.photoCount() == 2)
        }
    }

    @Test("a worker only ever handles one account's photos: a decoder taken over by one user's file never sees another's originals, nor answers for their thumbnails")
    func oneAccountPerWorker() async throws {
        let worker = try NamedWorker()
        try await withTestApp(configure: { config in
            config.blobStore = .filesystem(directory: temporaryBlobDirectory())
            config.imageWorkers.executable = worker.path
        }) { app in
            let ada = try await app.api.signedInUser()
            let bob = try await app.api.signedInUser()
            #expect(try await app.api.uploadPhoto(token: ada, image: TestImage.jpeg(seed: 1), title: "Ada's").status == .ok)
            let adas = Set(worker.running())
            #expect(adas.count == 1)
            #expect(try await app.api.uploadPhoto(token: bob, image: TestImage.jpeg(seed: 2), title: "Bob's").status == .ok)
            let bobs = Set(worker.running()).subtracting(adas)
            #expect(bobs.count == 1, "Bob's photo went to a worker of its own: \(worker.running()) after \(adas)")
            // Each account's next photo goes to its own worker again (no start-up per photo).
            #expect(try await app.api.uploadPhoto(token: ada, image: TestImage.jpeg(seed: 3), title: "Ada's again").status == .ok)
            #expect(Set(worker.running()) == adas.union(bobs))
        }
    }

    @Test("a worker that cannot be started (no such program) fails the upload with 503 and leaves nothing")
    func unstartableWorker() async throws {
        let folder = NSTemporaryDirectory() + "selfie-workers/\(UUID().uuidString)"
        try await withTestApp(configure: { config in
            config.blobStore = .filesystem(directory: temporaryBlobDirectory())
            config.imageWorkers.executable = folder + "/selfie-image-worker"
        }) { app in
            let token = try await app.api.signedInUser()
            let refused = try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(), title: "no worker").apiError()
            #expect(refused.status == 503)
            #expect(refused.message == "The photo could not be processed just now. Please try again in a moment.")
            #expect(try await app.photoCount() == 0)
            #expect(app.filesInBlobStore().isEmpty, "\(app.filesInBlobStore())")
        }
    }

    @Test("a worker that crashes on a photo (a decoder's fault, here a SIGSEGV) refuses it as unreadable with 422")
    func crashedWorker() async throws {
        let refused = try await upload { kill($0, SIGSEGV); kill($0, SIGCONT) }
        #expect(refused.status == 422)
        #expect(refused.message.contains("damaged"), "\(refused.message)")
    }

    @Test("a worker that traps on a photo (Swift's runtime traps with SIGTRAP on arm64, SIGILL on x86-64) refuses it as unreadable with 422, not 'try again'")
    func trappedWorker() async throws {
        let refused = try await upload { kill($0, SIGTRAP); kill($0, SIGCONT) }
        #expect(refused.status == 422)
        #expect(refused.message.contains("damaged"), "\(refused.message)")
    }

    @Test("a worker that hangs is killed at IMAGE_WORKER_TIMEOUT_SECONDS and the upload answers 503")
    func hungWorker() async throws {
        // Held and never continued: a worker that does not answer.
        let refused = try await upload(settings: { $0.timeout = .seconds(2) }) { _ in }
        #expect(refused.status == 503)
        // Answered at the 2 s timeout (with room for a loaded machine), not the default minute.
        #expect(refused.after < .seconds(20), "\(refused.after)")
    }

    @Test("a worker limits itself: address space, no core files, no new privileges, a seccomp filter, and no secret of the server's in its environment")
    func workerIsContained() async throws {
        try await withWaitingWorker(settings: { $0.memoryLimitMB = 768 }) { pid in
            let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
            let line = { (name: String) in limits.split(separator: "\n").first { $0.hasPrefix(name) }.map(String.init) ?? "" }
            #expect(line("Max address space").contains("\(768 * 1024 * 1024)"), "\(line("Max address space"))")
            #expect(line("Max core file size").split(separator: " ").contains("0"), "\(line("Max core file size"))")
            let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            #expect(status.contains("NoNewPrivs:\t1"))
            #expect(status.contains("Seccomp:\t2"), "filtered system calls (seccomp mode 2) in the worker that made the photo")
            // No libdispatch thread pool: its monitor reads /proc/<thread>/stat, which a contained
            // worker cannot open, and crashed it (SIGILL) about once in a thousand photos.
            let threads = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).compactMap {
                try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            #expect(!threads.isEmpty && !threads.contains { $0.contains("qos") }, "\(threads)")
            let environment = try #require(FileManager.default.contents(atPath: "/proc/\(pid)/environ"), "the worker's environ could not be read")
            #expect(environment.isEmpty, "the worker's environment: \(String(decoding: environment, as: UTF8.self))")
        }
    }

    @Test("a worker contained from the inside: no file it had not opened (not the server's environment, not /tmp), no socket of any kind, nothing of another process (signals, pidfds, limits, CPUs, priority, stack, file owners), no other program; what it needs of itself stays allowed")
    func workerReachesNothing() throws {
        let worker = Process()
        worker.executableURL = URL(fileURLWithPath: ImageWorkerSettings().resolvedExecutable)
        worker.arguments = ["--check-containment"]
        worker.environment = [:]
        let output = Pipe()
        worker.standardOutput = output
        worker.standardInput = FileHandle.nullDevice
        try worker.run()
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        worker.waitUntilExit()
        #expect(worker.terminationStatus == 0, "\(report)")
        let lines = report.split(separator: "\n").map(String.init)
        let reachingOut = ["signal the server", "signal its process group", "signal a thread of the server", "signal a thread by its id",
                           "queue a signal for the server", "pidfd of the server", "signal through a pidfd", "limits of the server",
                           "CPUs of the server", "priority of the server", "stack of the server", "the server as a pipe's owner",
                           "the server as a pipe's owner by ioctl", "compare the server's files"]
        let own = ["signal itself", "signal its own thread", "limits of itself", "limits of itself by its id", "its own CPUs", "its own pipe's flags"]
        let tried = ["open /etc/hostname", "open /proc/\(getpid())/environ", "open /proc/self/status", "open /tmp", "create a file",
                     "socket inet", "socket inet6", "socket unix"] + reachingOut + ["run a program"] + own
        #expect(lines.map { $0.components(separatedBy: ": ").first ?? "" } == tried, "\(report)")
        // What it needs of itself stays allowed.
        for line in lines {
            let what = line.components(separatedBy: ": ").first ?? ""
            #expect(line.contains(own.contains(what) ? ": allowed" : ": refused "), "\(line)")
        }
        // Reaching another process is refused by the seccomp filter (EACCES) on any kernel, not only
        // by Landlock's signal scope (EPERM, Linux 6.12 on), which covers none of the rest.
        for what in reachingOut {
            #expect(lines.contains("\(what): refused \(EACCES)"), "\(what): \(report)")
        }
    }

    @Test("a worker holds none of the server's open files: no listening socket, no client or database connection, only its pipes and stderr")
    func workerHoldsNothingOfTheServers() async throws {
        // Read while the server (this process) holds its listener, its pooled connections to
        // PostgreSQL and the upload's connection.
        try await withWaitingWorker { pid in
            let workers = openFiles(of: pid)
            let servers = openFiles(of: getpid())
            // A descriptor the worker shares with the server stays open for as long as the worker
            // lives: a connection the server closes is not closed for its peer, and a decoder that
            // is made to misbehave could write to PostgreSQL as the server. kcmp compares the open
            // files themselves (/proc names every epoll alike, and SwiftNIO's is not close-on-exec).
            let shared = workers.keys.filter { descriptor in
                descriptor > 2 && servers.keys.contains { cprocess_same_open_file(pid, getpid(), descriptor, $0) == 1 }
            }
            #expect(shared.isEmpty, "the worker holds the server's \(shared.sorted().map { "\($0): \(workers[$0] ?? "")" })")
            let sockets = workers.filter { $0.value.hasPrefix("socket:") }
            #expect(sockets.isEmpty, "the worker holds sockets: \(sockets.sorted { $0.key < $1.key })")
            #expect(workers[0]?.hasPrefix("pipe:") == true && workers[1]?.hasPrefix("pipe:") == true, "\(workers)")
        }
    }

    /// Runs `body` with the process id of a worker of a test app's that has made one photo and
    /// waits for the next, while the app runs.
    func withWaitingWorker(
        settings: @escaping @Sendable (inout ImageWorkerSettings) -> Void = { _ in },
        _ body: @escaping @Sendable (pid_t) throws -> Void
    ) async throws {
        let worker = try NamedWorker()
        try await withTestApp(configure: { config in
            config.blobStore = .filesystem(directory: temporaryBlobDirectory())
            config.imageWorkers.executable = worker.path
            settings(&config.imageWorkers)
        }) { app in
            let token = try await app.api.signedInUser()
            let response = try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(), title: "one photo")
            #expect(response.status == .ok, "\(response.text)")
            try body(try #require(worker.running().first))
        }
    }

    /// A process's open descriptors and what each one is (`/proc/<pid>/fd`'s links: a path,
    /// `socket:[inode]`, `pipe:[inode]`, `anon_inode:[eventpoll]` …).
    func openFiles(of pid: pid_t) -> [Int32: String] {
        let folder = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return Dictionary(uniqueKeysWithValues: entries.compactMap { entry in
            guard let descriptor = Int32(entry),
                  let file = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(entry)")
            else { return nil }
            return (descriptor, file)
        })
    }
}
