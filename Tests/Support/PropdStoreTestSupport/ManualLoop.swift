public import PropdStore
import Synchronization

/// An event loop as the store sees it, run by hand: whoever submits is on
/// it (unless told otherwise), and its tick ends when the test says so.
public final class ManualLoop: WriteLoop {
    private let afterTick = Mutex<[@Sendable () -> Void]>([])
    public let isCurrent: Bool
    public let servesOneConnection: Bool

    public init(isCurrent: Bool = true, servesOneConnection: Bool = false) {
        self.isCurrent = isCurrent
        self.servesOneConnection = servesOneConnection
    }

    public var identity: ObjectIdentifier { ObjectIdentifier(self) }

    public func executeAfterTick(_ work: @escaping @Sendable () -> Void) {
        afterTick.withLock { $0.append(work) }
    }

    /// Called each time a commit on this loop sends the answers it gave.
    public var onSendAnswers: @Sendable () -> Void {
        get { sendingAnswers.withLock { $0 } }
        set { sendingAnswers.withLock { $0 = newValue } }
    }
    private let sendingAnswers = Mutex<@Sendable () -> Void>({})

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
