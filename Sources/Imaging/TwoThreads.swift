#if canImport(Glibc)
import Glibc
#endif

/// Runs `other` on a thread of its own while `here` runs on the calling one, and returns once both
/// have. A plain thread rather than libdispatch: dispatch's thread-pool monitor reads
/// `/proc/<thread>/stat` now and then and crashes the process when it cannot, and the contained
/// worker cannot open files (`selfie-image-worker`'s Landlock).
func runAlongside(_ other: @escaping @Sendable () -> Void, _ here: () -> Void) {
    final class Job {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let job = Unmanaged.passRetained(Job(other)).toOpaque()
    var thread = pthread_t()
    let started = pthread_create(&thread, nil, { argument in
        Unmanaged<Job>.fromOpaque(argument!).takeRetainedValue().body()
        return nil
    }, job)
    guard started == 0 else {
        // No thread to be had (the worker's address space is capped): one after the other.
        Unmanaged<Job>.fromOpaque(job).takeRetainedValue().body()
        here()
        return
    }
    here()
    pthread_join(thread, nil)
}
