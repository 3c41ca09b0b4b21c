public import PropdStore
import Synchronization

/// An event loop as the store sees it, run by hand: whoever submits is on
/// it (unless told otherwise), and its tick ends when the test says so.
public final class ManualLoop: WriteLoop {
    private let afterTick = Mutex<[@Sendable () -> Void]>([])
    public let isCurrent: Bool
    public let servesOneConnection: Bool
    /// Called each time a commit on this loop sends the answers it gave.
    private let onSendAnswers: @Sendable () -> Void

    public init(
        isCurrent: Bool = true, servesOneConnection: Bool = false, onSendAnswers: @escaping @Sendable () -> Void = {}
    ) {
        self.isCurrent = isCurrent
        self.servesOneConnection = servesOneConnection
        self.onSendAnswers = onSendAnswers
    }

    public var identity: ObjectIdentifier { ObjectIdentifier(self) }

    public func executeAfterTick(_ work: @escaping @Sendable () -> Void) {
        afterTick.withLock { $0.append(work) }
    }

    public func sendAnswers() {
        onSendAnswers()
    }

    /// Work waiting for the end of the tick.
    public var scheduled: Int { afterTick.withLock { $0.count } }

    /// Ends the tick: runs what waits for it, on the calling thread.
    public func endTick() {
        let work = afterTick.withLock { work in
            var taken: [@Sendable () -> Void] = []
            swap(&taken, &work)
            return taken
        }
        for item in work { item() }
    }

    /// A call alone on its connection, handled on this loop.
    public var lone: WriteOrigin { .loop(self, alone: true) }
}
