import Foundation
import Synchronization

/// The browser sessions and API tokens this instance looked up recently, by the hash of their
/// token, so that a signed-in request needs no query.
///
/// It is right only while it hears of every change, so:
/// - it is **off** (every lookup goes to PostgreSQL, nothing is kept) until `AccessChangeListener`
///   has proved it receives the database's announcements, and again as soon as it stops;
/// - each change announced (`migrations/0019_access_changes.sql`: a sign-out, a revoked token, a
///   disabled user …) drops that user's entries on every instance, and this instance's own changes
///   drop them at once, before the request that made them answers (`forget(userID:)`);
/// - a lookup that was under way while its user's entries were dropped is not kept: it may have
///   read the row before the change committed (`Ticket`); changes to other users do not stop it
///   (one user changing their theme a thousand times must not keep everyone else's lookups out);
/// - dropping a user's entries costs what that user has, not the whole cache (`keysByUser`);
/// - an entry lives `lifetime` at most, and never past the session's or token's own expiry.
public final class AccessCache: Sendable {
    /// What a lookup takes before it asks the database, to keep what it finds afterwards.
    public struct Ticket: Sendable {
        fileprivate let generation: UInt64
    }

    private struct Entry<Value: Sendable>: Sendable {
        var value: Value
        let userID: Int64
        let until: Date
    }

    private struct State: Sendable {
        var listening = false
        /// Moves on every change heard and every time listening starts or stops.
        var generation: UInt64 = 0
        /// The users dropped at the latest generations, oldest first (`rememberedChanges` at most).
        var recentChanges: [(generation: UInt64, userID: Int64)] = []
        /// A ticket older than this cannot be told apart from the changes since: not kept.
        var oldestKnown: UInt64 = 0
        var sessions: [[UInt8]: Entry<ActiveSession>] = [:]
        var tokens: [[UInt8]: Entry<AuthenticatedToken>] = [:]
        /// Each user's keys in `sessions` and `tokens`.
        var keysByUser: [Int64: Set<[UInt8]>] = [:]

        /// Whether a lookup that took `ticket` may keep what it found of `userID`.
        func mayKeep(_ ticket: Ticket, of userID: Int64) -> Bool {
            guard listening, ticket.generation >= oldestKnown else { return false }
            return !recentChanges.contains { $0.generation > ticket.generation && $0.userID == userID }
        }

        /// Everything dropped: every ticket taken before is refused.
        mutating func dropAll() {
            generation &+= 1
            oldestKnown = generation
            recentChanges.removeAll()
            sessions.removeAll(keepingCapacity: true)
            tokens.removeAll(keepingCapacity: true)
            keysByUser.removeAll(keepingCapacity: true)
        }
    }

    /// How many changes a ticket is checked against: a lookup outlived by more is not kept.
    static let rememberedChanges = 256

    /// How long an entry is kept (`ACCESS_CACHE_SECONDS`); zero turns the cache off.
    public let lifetime: Duration
    /// Entries of each kind at most; a full cache is emptied (they are refilled by the next requests).
    let capacity: Int
    private let state = Mutex(State())

    public init(lifetime: Duration, capacity: Int = 20_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    public var isEnabled: Bool { lifetime > .zero }

    /// Whether lookups are answered from memory now (the listener is up).
    public var isServing: Bool { state.withLock { $0.listening } }

    // MARK: Lookups

    func session(tokenHash: [UInt8], now: Date = .now) -> ActiveSession? {
        entry(in: \.sessions, tokenHash: tokenHash, now: now)
    }

    func token(tokenHash: [UInt8], now: Date = .now) -> AuthenticatedToken? {
        entry(in: \.tokens, tokenHash: tokenHash, now: now)
    }

    /// Taken before the query whose answer `keep` may store; nil while nothing is kept.
    func ticket() -> Ticket? {
        state.withLock { $0.listening ? Ticket(generation: $0.generation) : nil }
    }

    func keep(_ session: ActiveSession, tokenHash: [UInt8], ticket: Ticket?) {
        keep(session, of: session.user.id, until: session.expiresAt, in: \.sessions, tokenHash: tokenHash, ticket: ticket)
    }

    func keep(_ token: AuthenticatedToken, tokenHash: [UInt8], ticket: Ticket?) {
        keep(token, of: token.user.id, until: token.expiresAt, in: \.tokens, tokenHash: tokenHash, ticket: ticket)
    }

    private func entry<Value>(in entries: KeyPath<State, [[UInt8]: Entry<Value>]>, tokenHash: [UInt8], now: Date) -> Value? {
        state.withLock { state in
            guard state.listening, let entry = state[keyPath: entries][tokenHash], entry.until > now else { return nil }
            return entry.value
        }
    }

    /// Stores `value` (the user's, ending at `expiresAt`) unless anything changed since `ticket`.
    private func keep<Value>(
        _ value: Value,
        of userID: Int64,
        until expiresAt: Date,
        in entries: WritableKeyPath<State, [[UInt8]: Entry<Value>]>,
        tokenHash: [UInt8],
        ticket: Ticket?
    ) {
        guard let ticket else { return }
        let until = min(Date.now.addingTimeInterval(lifetime.seconds), expiresAt)
        state.withLock { state in
            guard state.mayKeep(ticket, of: userID) else { return }
            if state[keyPath: entries].count >= capacity {
                // Both kinds go (the index cannot tell which key is which kind's): refilled by the next requests.
                state.sessions.removeAll(keepingCapacity: true)
                state.tokens.removeAll(keepingCapacity: true)
                state.keysByUser.removeAll(keepingCapacity: true)
            }
            state[keyPath: entries][tokenHash] = Entry(value: value, userID: userID, until: until)
            state.keysByUser[userID, default: []].insert(tokenHash)
        }
    }

    /// Records activity written to the database, so the entry does not ask for it again.
    func noteSeen(sessionTokenHash: [UInt8], at date: Date) {
        state.withLock { $0.sessions[sessionTokenHash]?.value.lastSeenAt = date }
    }

    func noteUsed(tokenHash: [UInt8], at date: Date) {
        state.withLock { $0.tokens[tokenHash]?.value.lastUsedAt = date }
    }

    // MARK: Changes

    /// Drops every entry of the user: something about their sessions, tokens or account changed.
    public func forget(userID: Int64) {
        state.withLock { state in
            state.generation &+= 1
            state.recentChanges.append((state.generation, userID))
            if state.recentChanges.count > Self.rememberedChanges {
                state.oldestKnown = state.recentChanges.removeFirst().generation
            }
            for key in state.keysByUser.removeValue(forKey: userID) ?? [] {
                state.sessions[key] = nil
                state.tokens[key] = nil
            }
        }
    }

    /// Starts answering from memory: the listener hears every change from now on.
    func startServing() {
        guard isEnabled else { return }
        state.withLock { state in
            state.dropAll()
            state.listening = true
        }
    }

    /// Stops answering from memory and drops everything: changes may go unheard from now on.
    func stopServing() {
        state.withLock { state in
            state.dropAll()
            state.listening = false
        }
    }
}

extension Duration {
    /// In seconds, with fractions.
    var seconds: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}
