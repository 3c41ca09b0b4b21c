// The states of one connection, as `VarlinkConnectionHandler` keeps them:
// each enum says what one side of the connection is doing, so that a
// combination that cannot happen (closed yet taking calls, a flush owed to a
// connection that is gone) cannot be written down.

/// Whether the connection takes calls, and how it ends.
enum ConnectionPhase: Equatable {
    /// Taking calls.
    case reading
    /// A protocol violation was read: no more calls are taken; the
    /// violation's reply closes the connection once earlier replies are out.
    case refusing
    /// The server is stopping: no more calls are taken; the connection
    /// closes once the calls taken are answered, or at once under a live stream.
    case quiescing
    /// Closing or closed: nothing more is written.
    case closed

    /// Whether calls read now are taken.
    var takesCalls: Bool { self == .reading }

    /// Whether replies may still be written.
    var writes: Bool { self != .closed }

    /// A protocol violation: refuse further calls (stopping and closed stay as they are).
    mutating func refuse() {
        if self == .reading { self = .refusing }
    }

    /// The server asks the connection to finish (a closed one stays closed).
    mutating func quiesce() {
        if self != .closed { self = .quiescing }
    }
}

/// Whether the connection is read: reads stop while the client does not
/// read its replies (not writable) or while too many calls wait.
enum ReadGate: Equatable {
    /// Reads pass through.
    case open
    /// The pipeline asked for a read while the channel was not writable:
    /// it is made when the channel is writable again.
    case owedUntilWritable
    /// Too many calls wait: nothing is read until they start; `owed` when
    /// the pipeline asked for a read meanwhile.
    case held(owed: Bool)

    /// Stops reading, keeping a read the pipeline asked for.
    mutating func hold() {
        switch self {
        case .open: self = .held(owed: false)
        case .owedUntilWritable: self = .held(owed: true)
        case .held: break
        }
    }
}

/// What was written and not yet flushed, and whether a flush task is queued.
enum OutputFlush: Equatable {
    /// Everything written is flushed; no flush task is queued.
    case flushed
    /// Written and not flushed: the end of the read burst (or the writer) flushes.
    case written
    /// A flush task is queued on the event loop; `written` when something awaits it.
    case flushQueued(written: Bool)

    var hasUnflushedWrites: Bool {
        switch self {
        case .flushed, .flushQueued(written: false): return false
        case .written, .flushQueued(written: true): return true
        }
    }

    var flushQueued: Bool {
        if case .flushQueued = self { return true }
        return false
    }

    /// A message was written.
    mutating func wrote() {
        switch self {
        case .flushed, .written: self = .written
        case .flushQueued: self = .flushQueued(written: true)
        }
    }

    /// The channel was flushed.
    mutating func flushed() {
        switch self {
        case .flushed, .written: self = .flushed
        case .flushQueued: self = .flushQueued(written: false)
        }
    }

    /// The queued flush task runs (and flushes what awaits it).
    mutating func flushTaskRan() {
        if case .flushQueued(let written) = self { self = written ? .written : .flushed }
    }
}

/// The pass over the connection's slots that sends answered replies and
/// starts waiting calls; a handler answering inside it asks for another.
enum DrainPass: Equatable {
    case idle
    case running
    /// Something moved during the pass: run it again before leaving.
    case rerunRequested
}
