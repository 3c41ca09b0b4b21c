public import NIOCore
import NIOPosix
import Synchronization

/// Work handed to one event loop from other threads, carried over by one
/// task per burst instead of one task per item.
///
/// A writer that commits a batch answers many calls on the same loop's
/// connections at once. One `EventLoop.execute` per answer would take the
/// loop's task lock each time, and could wake the loop with a syscall each
/// time. Here only the first post of a burst schedules a task. Later posts
/// append to it until it runs, and it runs them all in posting order.
public final class LoopMailbox: Sendable {
    /// The loop the work runs on.
    public let eventLoop: any EventLoop
    private let pending = Mutex(Pending())
    private let flushRound: NIOLoopBoundBox<FlushRound>
    /// The works waiting for the end of the loop's tick, in one task.
    private let afterTick: NIOLoopBoundBox<[AfterTickWork]>
    /// The connections open on the loop (see ``servesOneConnection``).
    private let connections: NIOLoopBoundBox<Int>

    /// What a mailbox carries. A call's answer, the commonest by far, and a
    /// ``LoopMailboxWork`` are carried as they are rather than in a closure,
    /// which would be one more allocation per post on the posting thread
    /// (a writer's).
    enum Delivery: Sendable {
        case closure(@Sendable () -> Void)
        case work(any LoopMailboxWork)
        case answer(NIOLoopBound<VarlinkConnectionHandler>, sequence: Int, VarlinkAnswer)

        consuming func run() {
            switch consume self {
            case .closure(let work): work()
            case .work(let work): work.runOnLoop()
            case .answer(let connection, let sequence, let answer):
                connection.value.complete(sequence: sequence, with: answer)
            }
        }
    }

    /// A work for the end of a tick, as the closure it is: an array of
    /// bare closures would keep each behind a thunk allocated at every
    /// append (a generic container stores a function at its most general
    /// abstraction).
    private struct AfterTickWork {
        let run: @Sendable () -> Void
    }

    private struct Pending {
        /// Optional so the loop can move each out in turn (see ``deliver()``).
        var work: [Delivery?] = []
        /// The array the last delivery ran, emptied, its storage kept for
        /// the next burst: posts then append without allocating, where a
        /// fresh array would grow from nothing at every delivery (on a busy
        /// loop a delivery often takes one or two items).
        var spare: [Delivery?] = []
        var scheduled = false
    }

    /// A frame waiting for the end of the round, and its stream.
    private struct RoundFrame {
        let stream: VarlinkReplyStream
        let frame: [UInt8]
    }

    /// The connections that wrote replies during the work running on the
    /// loop now (a delivery, or a tick's end-of-tick commit), flushed once
    /// when it returns: a connection answered there would otherwise queue a
    /// task of its own to flush, run only after the loop's other tasks.
    private struct FlushRound {
        var depth = 0
        var connections: [VarlinkConnectionHandler] = []
        /// Streams' frames to send once those connections are flushed
        /// (``sendAfterRound(_:frame:)``), each taken out in turn when sent.
        var frames: [RoundFrame?] = []
    }

    public init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        self.flushRound = .makeBoxSendingValue(FlushRound(), eventLoop: eventLoop)
        self.afterTick = .makeBoxSendingValue([], eventLoop: eventLoop)
        self.connections = .makeBoxSendingValue(0, eventLoop: eventLoop)
    }

    /// Whether the loop serves one connection and no other (call it on the
    /// loop): work that holds the loop, such as a commit waiting for its
    /// fsync, then holds up no other client.
    public var servesOneConnection: Bool { connections.value == 1 }

    /// A connection of the loop opened (call it on the loop).
    func connectionOpened() {
        connections.value += 1
    }

    /// A connection of the loop closed (call it on the loop).
    func connectionClosed() {
        connections.value -= 1
    }

    /// Runs `work` on the loop once the I/O of its current tick is handled
    /// (NIO runs the tasks queued during a tick after its reads), inside a
    /// flush round (call it on the loop). The works of a tick share one
    /// task, which captures only the mailbox: a work made once and handed
    /// over tick after tick costs no allocation.
    public func executeAfterTick(_ work: @escaping @Sendable () -> Void) {
        afterTick.value.append(AfterTickWork(run: work))
        guard afterTick.value.count == 1 else { return }
        eventLoop.execute { self.runAfterTick() }
    }

    private func runAfterTick() {
        var works: [AfterTickWork] = []
        swap(&works, &afterTick.value)
        flushingOnce {
            for work in works { work.run() }
        }
        // Works handed over while these ran wait for a task of their own;
        // otherwise the array goes back empty, its storage kept.
        works.removeAll(keepingCapacity: true)
        if afterTick.value.isEmpty { afterTick.value = works }
    }

    /// Runs `work` on the loop after everything posted before it.
    public func post(_ work: @escaping @Sendable () -> Void) {
        post(.closure(work))
    }

    /// Runs `work.runOnLoop()` on the loop after everything posted before
    /// it, without a closure (an object posted again and again costs no
    /// allocation per post).
    public func post(_ work: any LoopMailboxWork) {
        post(.work(work))
    }

    /// Runs `delivery` on the loop after everything posted before it.
    func post(_ delivery: consuming Delivery) {
        // Moved into the queue rather than copied there and dropped here: a
        // copy retains and releases everything it carries once more.
        var carried = Optional(consume delivery)
        let schedule = pending.withLock { pending in
            if let delivery = carried.take() { pending.work.append(delivery) }
            if pending.scheduled { return false }
            pending.scheduled = true
            return true
        }
        guard schedule else { return }
        if let held = HeldWakeups.ofThisThreadIfMade, held.hold(self) { return }
        scheduleDelivery()
    }

    /// Runs `body`, then wakes each loop that `body` posted work to, once:
    /// a writer answering a whole batch wakes a loop for all its answers,
    /// not again for each answer the loop had not taken yet (every wake-up
    /// a syscall, and on two vCPUs often a switch away from the writer).
    /// Nested calls hold the wake-ups until the outermost returns. The
    /// scope is the calling thread's: a task `body` starts runs elsewhere,
    /// and its posts wake their loops themselves.
    public static func holdingWakeups(_ body: () -> Void) {
        let held = HeldWakeups.ofThisThread
        held.open()
        body()
        held.close()
    }

    fileprivate func scheduleDelivery() {
        eventLoop.execute { self.deliver() }
    }

    private func deliver() {
        var work = pending.withLock { pending in
            pending.scheduled = false
            var taken: [Delivery?] = []
            swap(&taken, &pending.spare)
            swap(&taken, &pending.work)
            return taken
        }
        flushingOnce {
            // In posting order, each moved out of its place and run: a copy
            // would retain and release everything it carries once more.
            for index in work.indices { work[index].take()?.run() }
        }
        work.removeAll(keepingCapacity: true)
        pending.withLock { pending in pending.spare = work }
    }

    /// Runs `body` on the loop (call it there); each connection that asks
    /// for a flush meanwhile is flushed once when the outermost such call
    /// returns, instead of in a task of its own.
    public func flushingOnce(_ body: () -> Void) {
        flushRound.value.depth += 1
        body()
        flushRound.value.depth -= 1
        guard flushRound.value.depth == 0 else { return }
        flushRoundSoFar()
    }

    /// Flushes, inside the round running on the loop, the connections that
    /// asked for a flush so far, then sends the frames waiting for them;
    /// the round's end flushes what comes after (call it on the loop). A
    /// tick's commit calls it once it has answered its callers: the work it
    /// does after answering then holds up no reply.
    public func flushRoundSoFar() {
        if !flushRound.value.connections.isEmpty {
            // Taken first: a flush can start more calls (the connection turned
            // writable), whose answers, with no round open, flush by themselves.
            var connections: [VarlinkConnectionHandler] = []
            swap(&connections, &flushRound.value.connections)
            for connection in connections { connection.flushQueuedReplies() }
            // The array goes back empty, its storage kept for the next round.
            connections.removeAll(keepingCapacity: true)
            flushRound.value.connections = connections
        }
        if !flushRound.value.frames.isEmpty {
            var frames: [RoundFrame?] = []
            swap(&frames, &flushRound.value.frames)
            // In order (a stream's frames keep theirs), each moved out of
            // its place: a copy would retain its stream and bytes once more.
            for index in frames.indices {
                if let sent = frames[index].take() { sent.stream.send(frame: sent.frame) }
            }
            frames.removeAll(keepingCapacity: true)
            if flushRound.value.frames.isEmpty { flushRound.value.frames = frames }
        }
    }

    /// Sends `frame` on `stream` once the round running on the loop has
    /// flushed the replies it answered, at once when none runs (call it on
    /// the loop): a commit's callers get their replies before its
    /// subscribers' events, whose sends would otherwise hold them up.
    public func sendAfterRound(_ stream: VarlinkReplyStream, frame: consuming [UInt8]) {
        // Moved into the round, not copied there.
        if flushRound.value.depth > 0 {
            flushRound.value.frames.append(RoundFrame(stream: stream, frame: frame))
        } else {
            stream.send(frame: frame)
        }
    }

    /// Takes `connection`'s flush into the round running on the loop; false
    /// when none runs (call it on the loop).
    func flushAtRoundEnd(_ connection: VarlinkConnectionHandler) -> Bool {
        guard flushRound.value.depth > 0 else { return false }
        flushRound.value.connections.append(connection)
        return true
    }
}

/// Work posted to a ``LoopMailbox`` again and again, as an object rather
/// than a closure made at every post.
public protocol LoopMailboxWork: AnyObject, Sendable {
    /// Runs on the mailbox's loop.
    func runOnLoop()
}

/// The mailboxes whose wake-ups the ``LoopMailbox/holdingWakeups(_:)``
/// scopes open on one thread hold. One per thread, made at its first scope
/// and kept, so a scope allocates nothing (a writer opens one per batch).
/// Only its own thread uses it; the lock, never contended, is what makes
/// it `Sendable`, as `ThreadSpecificVariable` asks of what it keeps.
private final class HeldWakeups: Sendable {
    private static let perThread = ThreadSpecificVariable<HeldWakeups>()

    private struct Held {
        /// How many scopes are open on the thread.
        var depth = 0
        var mailboxes: [LoopMailbox] = []
    }

    private let held = Mutex(Held())

    /// The calling thread's, made on first use.
    static var ofThisThread: HeldWakeups {
        if let held = perThread.currentValue { return held }
        let held = HeldWakeups()
        perThread.currentValue = held
        return held
    }

    /// The calling thread's, if it ever opened a scope.
    static var ofThisThreadIfMade: HeldWakeups? { perThread.currentValue }

    func open() {
        held.withLock { $0.depth += 1 }
    }

    /// Holds `mailbox`'s wake-up until the outermost scope ends; false when
    /// no scope is open.
    func hold(_ mailbox: LoopMailbox) -> Bool {
        held.withLock { held in
            guard held.depth > 0 else { return false }
            held.mailboxes.append(mailbox)
            return true
        }
    }

    /// Ends a scope; the outermost wakes the held mailboxes' loops.
    func close() {
        let waking: [LoopMailbox]? = held.withLock { held in
            held.depth -= 1
            guard held.depth == 0, !held.mailboxes.isEmpty else { return nil }
            var waking: [LoopMailbox] = []
            swap(&waking, &held.mailboxes)
            return waking
        }
        guard var waking else { return }
        for mailbox in waking { mailbox.scheduleDelivery() }
        // The array goes back empty, its storage kept for the next scope.
        waking.removeAll(keepingCapacity: true)
        held.withLock { held in
            if held.mailboxes.isEmpty { held.mailboxes = waking }
        }
    }
}

/// One mailbox per loop of a group, made once, so all of a loop's
/// connections share theirs.
struct LoopMailboxes: Sendable {
    private let byLoop: [ObjectIdentifier: LoopMailbox]

    init(_ group: any EventLoopGroup) {
        var byLoop: [ObjectIdentifier: LoopMailbox] = [:]
        for loop in group.makeIterator() { byLoop[ObjectIdentifier(loop)] = LoopMailbox(eventLoop: loop) }
        self.byLoop = byLoop
    }

    /// The loop's mailbox; a loop outside the group (never: the listener
    /// hands connections only to its group's loops) gets one of its own.
    func mailbox(for loop: any EventLoop) -> LoopMailbox {
        byLoop[ObjectIdentifier(loop)] ?? LoopMailbox(eventLoop: loop)
    }
}
