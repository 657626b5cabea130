import Crypto
import Synchronization

/// The SHA-256 of each resumable upload so far, kept by the instance that received its bytes, so
/// the last PATCH need not read the whole file again to learn its digest. Only a digest of exactly
/// the recorded bytes counts: after a restart, or when another instance received some of them,
/// there is none, and the file is read once at the end instead. At most `capacity` uploads are
/// followed (abandoned ones are dropped first-in, first-out).
final class RunningDigests: Sendable {
    private struct State {
        var digests: [String: (offset: Int64, hasher: SHA256)] = [:]
        var order: [String] = []
    }

    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int = 512) { self.capacity = capacity }

    /// The digest of the first `offset` bytes of the upload, to continue; a fresh one at offset 0.
    func hasher(for upload: String, at offset: Int64) -> SHA256? {
        if offset == 0 { return SHA256() }
        return state.withLock { state in
            guard let entry = state.digests[upload], entry.offset == offset else { return nil }
            return entry.hasher
        }
    }

    /// The digest of the upload's first `offset` bytes, as recorded.
    func record(_ hasher: SHA256, for upload: String, at offset: Int64) {
        state.withLock { state in
            if state.digests.updateValue((offset, hasher), forKey: upload) == nil {
                state.order.append(upload)
                if state.order.count > capacity {
                    state.digests[state.order.removeFirst()] = nil
                }
            }
        }
    }

    func forget(_ upload: String) {
        state.withLock { state in
            guard state.digests.removeValue(forKey: upload) != nil else { return }
            state.order.removeAll { $0 == upload }
        }
    }
}
