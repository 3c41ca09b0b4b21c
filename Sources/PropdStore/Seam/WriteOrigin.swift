/// Who submits a write request, and so who waits for its outcome.
public enum WriteOrigin: Sendable {
    /// A task awaiting the outcome: the completion resumes a continuation.
    case task
    /// An event loop, handling a call of one of its connections; `alone`
    /// when that call was all its connection had in flight (a client
    /// waiting for each reply, rather than pipelining). The completion
    /// hands the outcome to the loop.
    case loop(any WriteLoop, alone: Bool)
    /// Any other thread (a timer firing, a command handler leaving): the
    /// completion only hands the outcome on.
    case thread
}

/// An event loop as the store sees it: a thread that runs tasks in ticks.
/// A server adapts its own loops to this.
public protocol WriteLoop: Sendable {
    /// The same for every value that stands for the same loop.
    var identity: ObjectIdentifier { get }
    /// Whether the caller runs on this loop now.
    var isCurrent: Bool { get }
    /// Whether the loop serves one connection only, the writing call's
    /// (asked on the loop): holding the loop then holds up no other client.
    var servesOneConnection: Bool { get }
    /// Runs `work` on the loop once the I/O and tasks of its current tick
    /// are done (every call the tick read has been handled).
    func executeAfterTick(_ work: @escaping @Sendable () -> Void)
    /// Sends the answers given so far by the work running on the loop now
    /// (an end-of-tick commit), rather than when that work returns: what
    /// the work does after answering then delays no caller (call it on the
    /// loop).
    func sendAnswers()
}
