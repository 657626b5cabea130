// The image worker: the only process that runs untrusted image decoders (libjpeg, libpng, libwebp,
// libheif through libvips). The server starts a few of them and sends each photo through a pipe
// (see ImageWorkWire); a decoder that crashes or runs wild takes down this process, not the server.
//
//   selfie-image-worker --max-pixels N --memory-limit-mb M [--check-containment]
//
// It reads requests from stdin and writes replies to stdout until stdin closes. Before the first
// request it limits itself: address space (`--memory-limit-mb`), no core files, few descriptors, no
// new privileges; and once libvips has loaded what it needs, no file it has not opened (Landlock:
// not the server's `.env`, not `/proc/<server>/environ`, not the photos in the store), no socket,
// no other program, no other process's memory (seccomp). It is started with an empty environment,
// so no secret of the server's reaches it. `--check-containment` tries each of those once contained,
// prints what happened, and exits (the tests' view of a worker from the inside).

import CMalloc
import CProcessControl
import Imaging
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

struct Arguments {
    var maxPixels = ImageLimits().maxPixels
    var memoryLimitMB = 1024
    var checkContainment = false

    init(_ arguments: ArraySlice<String>) {
        var rest = arguments
        while let name = rest.popFirst() {
            if name == "--check-containment" {
                checkContainment = true
                continue
            }
            let value = rest.popFirst().flatMap { Int($0) }
            switch (name, value) {
            case ("--max-pixels", let value?) where value > 0: maxPixels = value
            case ("--memory-limit-mb", let value?) where value >= 64: memoryLimitMB = value
            default: fail("unknown or invalid argument \(name)")
            }
        }
    }
}

func fail(_ message: String) -> Never {
    FileHandleOutput.standardError("selfie-image-worker: \(message)\n")
    exit(2)
}

enum FileHandleOutput {
    static func standardError(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}

/// Caps what a runaway decoder can take: memory (malloc fails, libvips reports an error), core dumps
/// (a crash writes nothing to disk), descriptors, and privileges gained through exec.
func limitSelf(memoryLimitMB: Int) {
    func set(_ resource: Int32, _ value: rlim_t) {
        var limit = rlimit(rlim_cur: value, rlim_max: value)
        if setrlimit(__rlimit_resource_t(UInt32(resource)), &limit) != 0 { fail("setrlimit(\(resource)) failed: errno \(errno)") }
    }
    set(Int32(RLIMIT_AS.rawValue), rlim_t(memoryLimitMB) * 1024 * 1024)
    set(Int32(RLIMIT_CORE.rawValue), 0)
    set(Int32(RLIMIT_NOFILE.rawValue), 64)
    if cprocess_forbid_new_privileges() != 0 { fail("PR_SET_NO_NEW_PRIVS failed: errno \(errno)") }
}

/// What a decoder made to misbehave would reach for next, taken away for good: every file and
/// directory not open yet, sockets, other programs, other processes' memory. After libvips has
/// started (it loads its modules from files). A kernel without Landlock keeps files reachable, and
/// says so on stderr; one without seccomp stops the worker (the server's next start fails the upload).
func containSelf() {
    switch cprocess_forbid_opening_files() {
    case -1: fail("Landlock failed: errno \(errno)")
    case 0: FileHandleOutput.standardError("selfie-image-worker: this kernel has no Landlock: files stay reachable\n")
    default: break
    }
    if cprocess_forbid_reaching_out() != 0 { fail("seccomp failed: errno \(errno)") }
}

/// `--check-containment`: each thing a contained worker must not do, tried, one line each
/// (`<what>: allowed` or `<what>: refused <errno>`).
func checkContainment() -> Never {
    func report(_ what: String, _ result: Int32) {
        let outcome = result >= 0 ? "allowed" : "refused \(errno)"
        var line = Array("\(what): \(outcome)\n".utf8)
        _ = line.withUnsafeMutableBytes { Glibc.write(1, $0.baseAddress, $0.count) }
    }
    for path in ["/etc/hostname", "/proc/\(getppid())/environ", "/proc/self/status", "/tmp"] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        report("open \(path)", descriptor)
        if descriptor >= 0 { close(descriptor) }
    }
    let created = open("/tmp/selfie-image-worker-\(getpid())", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    report("create a file", created)
    for (name, family) in [("socket inet", AF_INET), ("socket inet6", AF_INET6), ("socket unix", AF_UNIX)] {
        let socket = Glibc.socket(family, Int32(SOCK_STREAM.rawValue), 0)
        report(name, socket)
        if socket >= 0 { close(socket) }
    }
    let server = Int(getppid()), me = Int(getpid()), myThread = Int(cprocess_syscall(Int(SYS_gettid), 0, 0, 0, 0, 0))
    func call(_ number: Int32, _ a: Int = 0, _ b: Int = 0, _ c: Int = 0, _ d: Int = 0, _ e: Int = 0) -> Int32 {
        Int32(truncatingIfNeeded: cprocess_syscall(Int(number), a, b, c, d, e))
    }
    var signalInfo = [UInt8](repeating: 0, count: 128)
    var limit = rlimit()
    var cpus = [UInt8](repeating: 0, count: 128)
    var pipeEnds: [Int32] = [-1, -1]
    _ = pipe(&pipeEnds)
    signalInfo.withUnsafeMutableBytes { info in
        withUnsafeMutablePointer(to: &limit) { limit in
            cpus.withUnsafeMutableBytes { cpus in
                let (info, limit, cpus) = (Int(bitPattern: info.baseAddress), Int(bitPattern: limit), Int(bitPattern: cpus.baseAddress))
                report("signal the server", kill(getppid(), 0))
                report("signal its process group", kill(0, 0))
                report("signal a thread of the server", call(SYS_tgkill, server, server))
                report("signal a thread by its id", call(SYS_tkill, server))
                report("queue a signal for the server", call(SYS_rt_sigqueueinfo, server, 0, info))
                report("pidfd of the server", call(SYS_pidfd_open, server))
                report("signal through a pidfd", call(SYS_pidfd_send_signal, 0))
                report("limits of the server", call(SYS_prlimit64, server, Int(RLIMIT_NOFILE.rawValue), 0, limit))
                _ = call(SYS_sched_getaffinity, server, 128, cpus)
                report("CPUs of the server", call(SYS_sched_setaffinity, server, 128, cpus))
                report("priority of the server", call(SYS_setpriority, Int(PRIO_PROCESS.rawValue), server, Int(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(server)))))
                report("stack of the server", call(SYS_perf_event_open, 0, server, -1, -1, 0))
                report("the server as a pipe's owner", call(SYS_fcntl, Int(pipeEnds[0]), Int(F_SETOWN), server))
                report("the server as a pipe's owner by ioctl", call(SYS_ioctl, Int(pipeEnds[0]), 0x8901 /* FIOSETOWN */, limit))
                report("compare the server's files", call(SYS_kcmp, server, me, 0 /* KCMP_FILE */, 0, 0))
                var argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
                report("run a program", execv("/bin/true", &argv))
                // What it needs of itself stays allowed.
                report("signal itself", kill(getpid(), 0))
                report("signal its own thread", call(SYS_tgkill, me, myThread))
                report("limits of itself", call(SYS_prlimit64, 0, Int(RLIMIT_NOFILE.rawValue), 0, limit))
                report("limits of itself by its id", call(SYS_prlimit64, me, Int(RLIMIT_NOFILE.rawValue), 0, limit))
                _ = call(SYS_sched_getaffinity, 0, 128, cpus)
                report("its own CPUs", call(SYS_sched_setaffinity, 0, 128, cpus))
                report("its own pipe's flags", call(SYS_fcntl, Int(pipeEnds[0]), Int(F_GETFL)))
            }
        }
    }
    exit(0)
}

let arguments = Arguments(CommandLine.arguments.dropFirst())
// Ctrl-C in a terminal reaches the whole process group: the worker ends when the server closes its stdin.
signal(SIGINT, SIG_IGN)
limitSelf(memoryLimitMB: arguments.memoryLimitMB)
// Few threads allocate here; fewer arenas keep the resident size close to what is in use.
mallopt(M_ARENA_MAX, 2)
do {
    try ImageProcessor.start()
} catch {
    fail("\(error)")
}
containSelf()
if arguments.checkContainment { checkContainment() }

let processor = ImageProcessor(limits: ImageLimits(maxPixels: arguments.maxPixels))
let input = ImageWorkPipe(descriptor: 0)
let output = ImageWorkPipe(descriptor: 1)

do {
    while var header = try input.read(exactly: ImageWorkWire.requestHeaderSize) {
        let (request, length) = try ImageWorkWire.readRequestHeader(&header)
        let image = try input.read(exactly: length) ?? ByteBuffer()
        let reply: ImageWorkReply
        do {
            switch request {
            case .renditions: reply = .processed(try processor.process(image))
            case .probe: reply = .probed(try processor.probe(image))
            }
        } catch {
            reply = .refused(error)
        }
        try output.write(ImageWorkWire.encode(reply))
        // Hand the image's and the pipeline's memory back to the system between photos.
        malloc_trim(0)
    }
} catch {
    fail("\(error)")
}
