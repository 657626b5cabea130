// The image worker: the only process that runs untrusted image decoders (libjpeg, libpng, libwebp,
// libheif through libvips). The server starts a few of them and sends each photo through a pipe
// (see ImageWorkWire); a decoder that crashes or runs wild takes down this process, not the server.
//
//   selfie-image-worker --max-pixels N --memory-limit-mb M
//
// It reads requests from stdin and writes replies to stdout until stdin closes. Before the first
// request it limits itself: address space (`--memory-limit-mb`), no core files, few descriptors, no
// new privileges. It is started with an empty environment, so no secret of the server's reaches it.

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

    init(_ arguments: ArraySlice<String>) {
        var rest = arguments
        while let name = rest.popFirst() {
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

let arguments = Arguments(CommandLine.arguments.dropFirst())
// Ctrl-C in a terminal reaches the whole process group: the worker ends when the server closes its stdin.
signal(SIGINT, SIG_IGN)
limitSelf(memoryLimitMB: arguments.memoryLimitMB)
// Few threads allocate here; fewer arenas keep the resident size close to what is in use.
mallopt(M_ARENA_MAX, 2)

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
