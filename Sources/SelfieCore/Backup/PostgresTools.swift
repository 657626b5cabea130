import CProcessControl
import Foundation

/// `pg_dump` and `pg_restore` (Debian's `postgresql-client`), run as child processes. The
/// connection goes in their environment (`PGHOST`, `PGPASSWORD`, …), never on their command line,
/// where `ps` would show the password to every user of the machine.
enum PostgresTools {
    static func run(_ tool: String, _ arguments: [String], database: DatabaseURL) async throws {
        _ = try await run(tool, arguments, database: database, keepingOutput: false)
    }

    /// Runs `tool` and returns what it wrote to its standard output (a listing: small).
    static func output(_ tool: String, _ arguments: [String], database: DatabaseURL) async throws -> String {
        try await run(tool, arguments, database: database, keepingOutput: true)
    }

    private static func run(_ tool: String, _ arguments: [String], database: DatabaseURL, keepingOutput: Bool) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.environment = environment(for: database)
        let errors = try ToolPipe(for: tool)
        process.standardError = errors.writing
        let output = keepingOutput ? try ToolPipe(for: tool) : nil
        process.standardOutput = output?.writing ?? FileHandle.nullDevice
        // Both read while it runs: a listing, or complaints, larger than a pipe's buffer would
        // otherwise block it (and the wait for it to end would never end).
        let printed = output.map { pipe in Task { await readToEnd(pipe.reading) } }
        let complaints = Task { await readToEnd(errors.reading) }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
                // The tool has its copies; ours would keep the readers from ever seeing the end.
                try? output?.writing.close()
                try? errors.writing.close()
            } catch {
                process.terminationHandler = nil
                // Nothing will write to the output: its reader must see the end, not wait for ever.
                try? output?.writing.close()
                try? errors.writing.close()
                continuation.resume(throwing: BackupError.toolMissing(tool))
            }
        }
        let message = String(decoding: await complaints.value, as: UTF8.self)
        let text = String(decoding: await printed?.value ?? Data(), as: UTF8.self)
        guard status == 0 else {
            // The end of what it said (a tool that says much says why it stopped last).
            let said = message.trimmingCharacters(in: .whitespacesAndNewlines)
            throw BackupError.toolFailed(tool, status: status, message: String(said.suffix(Self.complaintKept)))
        }
        return text
    }

    /// Everything `handle` gives until its end, read on a thread of its own: a read that blocks for
    /// as long as a tool runs must not hold one of Swift's few shared threads (two on a machine of
    /// two cores: two tools at once, each with its reader there, left none for anything else).
    private static func readToEnd(_ handle: FileHandle) async -> Data {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: handle.readDataToEndOfFile()) }
        }
    }

    /// A pipe for a tool's output, close-on-exec from the start (Foundation's `Pipe` is not): a
    /// child another thread starts at the same moment (an image worker, another tool) must not get
    /// a copy of its writing end, or the reader sees the end only when that child ends too.
    struct ToolPipe {
        let reading: FileHandle
        let writing: FileHandle

        init(for tool: String) throws {
            var ends: [Int32] = [-1, -1]
            guard pipe2(&ends, O_CLOEXEC) == 0 else {
                throw BackupError.toolFailed(tool, status: -1, message: "no pipe for its output: \(String(cString: strerror(errno)))")
            }
            reading = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
            writing = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        }
    }

    /// How much of a failed tool's standard error its error keeps, in characters.
    static let complaintKept = 4_000

    /// The tools' environment: `base` with the connection's settings. Over TLS they check the
    /// server's certificate and name as the server's own connections do (NIOSSL's defaults: the
    /// system's trusted roots), not libpq's `require`, which encrypts without checking who answers.
    static func environment(for database: DatabaseURL, base: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        var environment = base
        // libpq wants the socket's folder; the URL may name the socket file itself.
        environment["PGHOST"] = database.unixSocketPath.map { path in
            URL(fileURLWithPath: path).lastPathComponent.hasPrefix(".s.PGSQL.") ? URL(fileURLWithPath: path).deletingLastPathComponent().path : path
        } ?? database.host
        environment["PGPORT"] = String(database.port)
        environment["PGUSER"] = database.username
        environment["PGDATABASE"] = database.database
        environment["PGSSLMODE"] = database.requireTLS ? "verify-full" : "disable"
        if database.requireTLS, environment["PGSSLROOTCERT"] == nil {
            environment["PGSSLROOTCERT"] = systemTrustedRoots.first { FileManager.default.fileExists(atPath: $0) }
        }
        environment["PGPASSWORD"] = database.password
        environment["PGCONNECT_TIMEOUT"] = "10"
        return environment
    }

    /// Where Debian (and Red Hat) keep the bundle of trusted roots, as NIOSSL looks for it.
    static let systemTrustedRoots = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"]
}
