// Benchmark of the Imaging pipeline (build with -c release):
//
//   swift run -c release imaging-bench [--runs 10] [--concurrency 8] [--no-peak-rss] [FILE …]
//
// With no FILE it makes a 12 MP photo-like JPEG (4000×3000: gradients, shapes and noise, quality 90) and the same
// picture as HEIC (heif-enc), which needs python3 with Pillow and heif-enc. For each file it prints the median
// wall and CPU milliseconds of `ImageProcessor.process` (all standard renditions) run one at a time, then the
// peak RSS of a fresh process while `--concurrency` threads process the file at once.

import Foundation
import Imaging
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

struct Options {
    var runs = 10
    var concurrency = 8
    /// No child process for the peak RSS (under valgrind, which cannot follow /proc/self/exe).
    var measurePeakRSS = true
    var files: [String] = []
    /// Internal: measure peak RSS of concurrent runs of this one file, in this process.
    var peakRSSOf: String?

    init(_ arguments: ArraySlice<String>) {
        var rest = arguments
        while let argument = rest.popFirst() {
            switch argument {
            case "--runs": runs = Int(rest.popFirst() ?? "") ?? runs
            case "--concurrency": concurrency = Int(rest.popFirst() ?? "") ?? concurrency
            case "--peak-rss-of": peakRSSOf = rest.popFirst()
            case "--no-peak-rss": measurePeakRSS = false
            default: files.append(argument)
            }
        }
    }
}

func milliseconds(_ clock: clockid_t) -> Double {
    var now = timespec()
    clock_gettime(clock, &now)
    return Double(now.tv_sec) * 1000 + Double(now.tv_nsec) / 1_000_000
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// VmRSS or VmHWM of this process, in MB.
func statusMegabytes(_ field: String) -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    return Double(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "0")! / 1024
}

func load(_ path: String) throws -> ByteBuffer {
    ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// One file, one call at a time: median wall and CPU time. CPU is the whole process's, which is the pipeline's
/// alone here; on a shared machine it is the steadier figure.
func timeOneAtATime(_ path: String, runs: Int) throws {
    let bytes = try load(path)
    let processor = ImageProcessor()
    let result = try processor.process(bytes)  // warm-up: libvips start, codec tables
    var wall: [Double] = []
    var cpu: [Double] = []
    for _ in 0..<runs {
        let (wall0, cpu0) = (milliseconds(CLOCK_MONOTONIC), milliseconds(CLOCK_PROCESS_CPUTIME_ID))
        _ = try processor.process(bytes)
        wall.append(milliseconds(CLOCK_MONOTONIC) - wall0)
        cpu.append(milliseconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0)
    }
    let probe = result.probe
    print("\(URL(fileURLWithPath: path).lastPathComponent): \(probe.format) \(probe.width)×\(probe.height), "
        + "\(bytes.readableBytes / 1024) KB")
    for rendition in result.renditions {
        print("  \(rendition.name): \(rendition.width)×\(rendition.height) \(rendition.mimeType), "
            + "\(rendition.bytes.readableBytes / 1024) KB")
    }
    print(String(format: "  one at a time, median of %d: wall %.0f ms, CPU %.0f ms (min wall %.0f ms)",
                 runs, median(wall), median(cpu), wall.min() ?? 0))
}

/// Runs in a child process so that its peak RSS is this file's alone.
func peakRSS(of path: String, concurrency: Int) throws {
    let bytes = try load(path)
    let processor = ImageProcessor()
    _ = try processor.process(bytes)
    let before = statusMegabytes("VmRSS")
    let group = DispatchGroup()
    let started = milliseconds(CLOCK_MONOTONIC)
    for _ in 0..<concurrency {
        group.enter()
        Thread {
            for _ in 0..<2 { _ = try? processor.process(bytes) }
            group.leave()
        }.start()
    }
    group.wait()
    let elapsed = milliseconds(CLOCK_MONOTONIC) - started
    print(String(format: "  %d at once (2 each): peak RSS %.0f MB (%.0f MB before), %.0f ms for all %d",
                 concurrency, statusMegabytes("VmHWM"), before, elapsed, concurrency * 2))
}

func makeBenchmarkPhotos() throws -> [String] {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imaging-bench")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let jpeg = folder.appendingPathComponent("photo-12mp.jpg").path
    let heic = folder.appendingPathComponent("photo-12mp.heic").path
    if !FileManager.default.fileExists(atPath: heic) {
        let python = """
            import sys
            from PIL import Image, ImageDraw, ImageFilter
            w, h = 4000, 3000
            base = Image.merge("RGB", (Image.linear_gradient("L").resize((w, h)),
                                       Image.linear_gradient("L").rotate(90).resize((w, h)),
                                       Image.radial_gradient("L").resize((w, h))))
            draw = ImageDraw.Draw(base)
            for i in range(12):
                x, y, r = (i * 104729) % w, (i * 32452843) % h, w // (8 + i % 5)
                draw.ellipse((x - r, y - r, x + r, y + r), fill=((i * 60) % 256, (i * 110) % 256, (i * 170) % 256))
            base = base.filter(ImageFilter.GaussianBlur(10))
            Image.blend(base, Image.effect_noise((w, h), 18).convert("RGB"), 0.18).save(sys.argv[1], quality=90)
            """
        try run("/usr/bin/env", ["python3", "-c", python, jpeg])
        try run("/usr/bin/env", ["heif-enc", "-q", "80", "-o", heic, jpeg])
    }
    return [jpeg, heic]
}

func run(_ executable: String, _ arguments: [String], showOutput: Bool = false) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if !showOutput { process.standardOutput = FileHandle(forWritingAtPath: "/dev/null") }
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(arguments) failed"])
    }
}

let options = Options(CommandLine.arguments.dropFirst())
if let path = options.peakRSSOf {
    try peakRSS(of: path, concurrency: options.concurrency)
} else {
    let files = options.files.isEmpty ? try makeBenchmarkPhotos() : options.files
    for path in files {
        try timeOneAtATime(path, runs: options.runs)
        fflush(nil)  // before the child writes to the same terminal
        guard options.measurePeakRSS else { continue }
        try run("/proc/self/exe", ["--peak-rss-of", path, "--concurrency", String(options.concurrency)],
                showOutput: true)
    }
}
