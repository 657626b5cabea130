/// Runs work that must happen even when the task that needs it has been cancelled (a request cut
/// off at shutdown, a client gone): closing a file, removing what a failed upload wrote. It runs
/// in a task of its own, which does not inherit the cancellation, so the thread pool and the HTTP
/// client still do the work.
func evenIfCancelled<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await Task { try await body() }.value
}
