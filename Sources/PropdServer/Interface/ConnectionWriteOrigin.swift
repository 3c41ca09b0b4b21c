import NIOCore
import PropdStore
import PropdVarlink

extension WriteOrigin {
    /// A call on `connection`, handled on its event loop: the loop, and
    /// whether the call is alone on its connection (the connection handler
    /// counts its calls in flight).
    static func call(on connection: VarlinkConnectionContext, _ responder: VarlinkResponder) -> WriteOrigin {
        .loop(NIOWriteLoop(mailbox: connection.mailbox), alone: responder.alone)
    }
}

/// A NIO event loop as the store sees it: its mailbox, which knows the loop.
/// One reference, so the `any WriteLoop` of every call's origin holds it
/// inline, with no box of its own to allocate and copy.
struct NIOWriteLoop: WriteLoop {
    /// The loop's mailbox: its flush round takes the replies the tick's
    /// commit answers, flushed together when the commit returns.
    let mailbox: LoopMailbox

    var identity: ObjectIdentifier { ObjectIdentifier(mailbox.eventLoop) }
    var isCurrent: Bool { mailbox.eventLoop.inEventLoop }
    var servesOneConnection: Bool { mailbox.servesOneConnection }

    func executeAfterTick(_ work: @escaping @Sendable () -> Void) {
        mailbox.executeAfterTick(work)
    }

    func sendAnswers() {
        mailbox.flushRoundSoFar()
    }
}
