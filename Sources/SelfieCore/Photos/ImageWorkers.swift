import CProcessControl
import Foundation
import ImagingTypes
import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// How the image workers run: `IMAGE_WORKER_PATH` (default: `selfie-image-worker` beside the running
/// executable), `IMAGE_WORKER_MEMORY_MB` (each worker's address space), `IMAGE_WORKER_TIMEOUT_SECONDS`
/// (the longest one photo may take before its worker is killed).
public struct ImageWorkerSettings: Sendable, Equatable {
    public var executable: String?
    public var memoryLimitMB = 2048
    public var timeout: Duration = .seconds(60)

    public init() {}

    static func load(value: (String) -> String?, problems: inout [String]) -> ImageWorkerSettings {
        var settings = ImageWorkerSettings()
        settings.executable = value("IMAGE_WORKER_PATH").flatMap { $0.isEmpty ? nil : $0 }
        if let raw = value("IMAGE_WORKER_MEMORY_MB") {
            if let megabytes = Int(raw), megabytes >= 256 {
                settings.memoryLimitMB = megabytes
            } else {
                problems.append("IMAGE_WORKER_MEMORY_MB must be a whole number of megabytes, at least 256, got \"\(raw)\"")
            }
        }
        if let raw = value("IMAGE_WORKER_TIMEOUT_SECONDS") {
            if let seconds = Int(raw), seconds >= 5 {
                settings.timeout = .seconds(seconds)
            } else {
                problems.append("IMAGE_WORKER_TIMEOUT_SECONDS must be a whole number of seconds, at least 5, got \"\(raw)\"")
            }
        }
        return settings
    }

    /// The worker's path: the setting, else `selfie-image-worker` in the running executable's folder
    /// (`.build/debug` for the tests as for the server, `/app` in the container).
    var resolvedExecutable: String {
        if let executable { return executable }
        let running = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: running).deletingLastPathComponent().appendingPathComponent("selfie-image-worker").path
    }
}

/// Why a worker gave no answer for a photo.
enum ImageWorkerFailure: Error, Equatable {
    /// The worker died on this photo by a fault (a decoder crashed on it, or ran out of memory and
    /// aborted): the photo's fault, refused as unreadable.
    case crashedOnImage(signal: Int32)
    /// Killed from outside, timed out, or could not be started: nothing to do with the photo.
    case unavailable(String)
}

/// The server's image workers: `selfie-image-worker` processes, started on demand, kept between photos,
/// one per photo in flight (the caller bounds how many run at once). Each photo streams from the blob
/// store into a worker's stdin and its renditions come back on its stdout; the server never holds the
/// original or a decoded pixel. A worker that fails in any way is killed and a fresh one started for
/// the next photo.
///
/// A worker only ever handles one account's photos: a decoder taken over by a hostile file is
/// contained (no file, no socket), but it reads every photo sent to it and answers for their
/// renditions, so it must never be sent another account's. Idle workers are kept per account,
/// `keptIdle` at most (the longest idle stops first).
final class ImageWorkers: Sendable {
    private let settings: ImageWorkerSettings
    private let maxPixels: Int
    private let idle = Mutex<[(worker: WorkerProcess, owner: Int64)]>([])
    private let keptIdle = max(2, System.coreCount)
    private let scopedLogger: ScopedLogger

    /// Blocking pipe I/O and process start-up, off the event loops and the cooperative pool, apart
    /// from NIO's own (file I/O) and bcrypt's, so that none starves another.
    private static let pool: NIOThreadPool = {
        // A write to a worker that has just died must fail with EPIPE, not kill the server.
        signal(SIGPIPE, SIG_IGN)
        let pool = NIOThreadPool(numberOfThreads: System.coreCount)
        pool.start()
        return pool
    }()
    private var pool: NIOThreadPool { Self.pool }

    init(settings: ImageWorkerSettings, maxPixels: Int, logger: Logger) {
        self.settings = settings
        self.maxPixels = maxPixels
        self.scopedLogger = ScopedLogger(logger)
    }

    deinit {
        // Idle workers read the end of their stdin and exit; stop() reaps them.
        let workers = idle.withLock { $0.map(\.worker) }
        Self.pool.submit { _ in workers.forEach { $0.stop() } }
    }

    /// Sends `request` with the `byteCount` bytes `body` writes — a photo of `owner`'s — to one of
    /// that account's workers, and returns the worker's reply.
    func run(_ request: ImageWorkRequest, body: BlobBody, byteCount: Int, owner: Int64) async throws -> ImageWorkReply {
        let deadline = ContinuousClock.now.advanced(by: settings.timeout)
        let worker = try await checkOut(for: owner)
        do {
            let header = ImageWorkWire.requestHeader(request, byteCount: byteCount)
            try await pool.runIfActive { try worker.input.write(header, until: deadline) }
            var sent = 0
            try await body.write { chunk in
                sent += chunk.readableBytes
                guard sent <= byteCount else { throw ImageWorkerFailure.unavailable("the blob is longer than its row says") }
                try await self.pool.runIfActive { try worker.input.write(chunk, until: deadline) }
            }
            guard sent == byteCount else { throw ImageWorkerFailure.unavailable("the blob is shorter than its row says") }
            let reply = try await pool.runIfActive { try worker.readReply(until: deadline) }
            checkIn(worker, of: owner)
            return reply
        } catch {
            // Mid-frame, the worker's state is unknown: it is never reused — stopped and reaped even
            // when the upload was cancelled (else it would live on, its pipes open in the server).
            let pool = self.pool
            let ending = await (try? evenIfCancelled { try await pool.runIfActive { worker.stop() } }) ?? .unknown
            scopedLogger.current.warning("image worker stopped", metadata: ["pid": "\(worker.pid)", "ended": "\(ending)", "error": "\(error)"])
            if case .signalled(let signal) = ending, WorkerProcess.faultSignals.contains(signal) {
                throw ImageWorkerFailure.crashedOnImage(signal: signal)
            }
            switch error {
            case is ImageWorkPipe.Failure, is ImageWorkWire.Malformed:
                throw ImageWorkerFailure.unavailable("\(error)")
            default:
                throw error
            }
        }
    }

    /// An idle worker of `owner`'s (the latest back first), or a new one.
    private func checkOut(for owner: Int64) async throws -> WorkerProcess {
        // A worker that died while it waited (the kernel's OOM killer, an operator) is not handed a
        // photo: it would cost that upload a 503.
        while let worker = idle.withLock({ idle in idle.lastIndex { $0.owner == owner }.map { idle.remove(at: $0).worker } }) {
            guard let ending = worker.endingIfExited() else { return worker }
            scopedLogger.current.warning("an idle image worker had ended", metadata: ["pid": "\(worker.pid)", "ended": "\(ending)"])
        }
        let (settings, maxPixels) = (self.settings, self.maxPixels)
        return try await pool.runIfActive { try WorkerProcess.start(settings, maxPixels: maxPixels) }
    }

    /// Keeps a worker that answered for `owner`'s next photo; past `keptIdle`, the one idle longest stops.
    private func checkIn(_ worker: WorkerProcess, of owner: Int64) {
        let surplus = idle.withLock { idle -> [WorkerProcess] in
            idle.append((worker, owner))
            let extra = max(0, idle.count - keptIdle)
            defer { idle.removeFirst(extra) }
            return idle.prefix(extra).map(\.worker)
        }
        // Reading the end of its stdin, it exits; stop() reaps it.
        if !surplus.isEmpty { pool.submit { _ in surplus.forEach { $0.stop() } } }
    }
}

/// One running `selfie-image-worker`, its stdin and its stdout.
final class WorkerProcess: Sendable {
    let pid: pid_t
    let input: ImageWorkPipe
    let output: ImageWorkPipe

    /// Signals by which a process dies of its own fault (not `kill` from outside); a Swift runtime
    /// trap is SIGILL on x86-64 and SIGTRAP on arm64.
    static let faultSignals: Set<Int32> = [SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGTRAP, SIGFPE, SIGSYS]

    enum Ending: Sendable, CustomStringConvertible {
        case exited(Int32), signalled(Int32), unknown

        /// From `waitpid`'s status of a process that has ended.
        init(waitStatus status: Int32) {
            let signal = status & 0x7f
            self = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
        }
        var description: String {
            switch self {
            case .exited(let status): "exit \(status)"
            case .signalled(let signal): "signal \(signal)"
            case .unknown: "unknown"
            }
        }
    }

    private init(pid: pid_t, input: Int32, output: Int32) {
        self.pid = pid
        self.input = ImageWorkPipe(descriptor: input)
        self.output = ImageWorkPipe(descriptor: output)
    }

    /// Starts a worker with an empty environment: its stdin and stdout are pipes to this process,
    /// its stderr is the server's.
    static func start(_ settings: ImageWorkerSettings, maxPixels: Int) throws -> WorkerProcess {
        var toWorker: [Int32] = [0, 0]
        var fromWorker: [Int32] = [0, 0]
        // Close-on-exec from the start, so that no other child the server starts (pg_dump, another
        // worker) keeps a worker's stdin open.
        guard pipe2(&toWorker, O_CLOEXEC) == 0 else { throw ImageWorkerFailure.unavailable("pipe: errno \(errno)") }
        guard pipe2(&fromWorker, O_CLOEXEC) == 0 else {
            close(toWorker[0]); close(toWorker[1])
            throw ImageWorkerFailure.unavailable("pipe: errno \(errno)")
        }
        // The server's ends do not block: a write returns what fits and `ImageWorkPipe` polls for
        // the rest until the deadline (a blocking write of a large chunk would wait past any deadline).
        for descriptor in [toWorker[1], fromWorker[0]] { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) }
        var actions = posix_spawn_file_actions_t()
        // The worker gets its two pipes as stdin and stdout (dup2 clears close-on-exec on the
        // copies), keeps the server's stderr, and nothing else: SwiftNIO's and PostgresNIO's
        // sockets and epoll are not close-on-exec, and a worker holding one would keep a connection
        // the server closed open for its peer, and let a decoder made to misbehave talk to
        // PostgreSQL as the server. Each call answers an error number (ENOMEM), not -1.
        let executable = settings.resolvedExecutable
        func notStarted(_ error: Int32) -> ImageWorkerFailure {
            for descriptor in toWorker + fromWorker { close(descriptor) }
            return .unavailable("\(executable) could not be started: \(String(cString: strerror(error)))")
        }
        let prepared = posix_spawn_file_actions_init(&actions)
        guard prepared == 0 else { throw notStarted(prepared) }
        defer { posix_spawn_file_actions_destroy(&actions) }
        let failed = [
            posix_spawn_file_actions_adddup2(&actions, toWorker[0], 0),
            posix_spawn_file_actions_adddup2(&actions, fromWorker[1], 1),
            posix_spawn_file_actions_addclosefrom_np(&actions, 3),
        ].first { $0 != 0 }
        if let failed { throw notStarted(failed) }
        let arguments = [executable, "--max-pixels", String(maxPixels), "--memory-limit-mb", String(settings.memoryLimitMB)]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var environment: [UnsafeMutablePointer<CChar>?] = [nil]
        // Signals at their defaults in the worker, none blocked: the server ignores SIGTERM (its
        // own graceful shutdown watches for it), the thread that starts a worker blocks nearly
        // every signal, and both are kept across exec, so an operator's `kill` of a worker did
        // nothing. (The worker ignores SIGINT itself: a terminal's Ctrl-C is the server's.)
        var attributes = posix_spawnattr_t()
        let attributesMade = posix_spawnattr_init(&attributes)
        guard attributesMade == 0 else { throw notStarted(attributesMade) }
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        var noneBlocked = sigset_t()
        sigemptyset(&noneBlocked)
        let attributesFailed = [
            posix_spawnattr_setsigdefault(&attributes, &defaults),
            posix_spawnattr_setsigmask(&attributes, &noneBlocked),
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)),
        ].first { $0 != 0 }
        if let attributesFailed { throw notStarted(attributesFailed) }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, &argv, &environment)
        guard status == 0 else { throw notStarted(status) }
        // The worker's ends are its own now.
        close(toWorker[0])
        close(fromWorker[1])
        return WorkerProcess(pid: pid, input: toWorker[1], output: fromWorker[0])
    }

    /// The next reply, which must arrive before `deadline`.
    func readReply(until deadline: ContinuousClock.Instant) throws -> ImageWorkReply {
        guard var lengthBytes = try output.read(exactly: ImageWorkWire.replyLengthSize, until: deadline) else {
            throw ImageWorkPipe.Failure.closed
        }
        let length = try ImageWorkWire.readReplyLength(&lengthBytes)
        guard var body = try output.read(exactly: length, until: deadline) else { throw ImageWorkPipe.Failure.closed }
        return try ImageWorkWire.decodeReply(&body)
    }

    /// How the worker ended if it has (reaped, its pipes closed); nil while it runs. Does not block.
    func endingIfExited() -> Ending? {
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        close(input.descriptor)
        close(output.descriptor)
        return Ending(waitStatus: status)
    }

    /// Ends the worker: how it ended if it had died already, else it is killed. Blocking (waits for it).
    @discardableResult
    func stop() -> Ending {
        close(input.descriptor)
        close(output.descriptor)
        var status: Int32 = 0
        var reaped = waitpid(pid, &status, WNOHANG)
        if reaped == 0 {
            // Still running (a timeout, a cancelled upload): a worker that has just crashed may not be
            // reaped yet, so give it a moment before deciding it was alive.
            usleep(20_000)
            reaped = waitpid(pid, &status, WNOHANG)
        }
        if reaped == 0 {
            kill(pid, SIGKILL)
            repeat { reaped = waitpid(pid, &status, 0) } while reaped < 0 && errno == EINTR
            // Killed, unless it had crashed on the photo in the moment before: its own status says.
        }
        guard reaped == pid else { return .unknown }
        return Ending(waitStatus: status)
    }
}
