import NIOCore
import PropdStore
import PropdVarlink

extension WriteOrigin {
    /// A call on `connection`, handled on its event loop: the loop, and
    /// whether the call is alone on its connection (the connection handler
    /// counts its calls in flight).
    static func call(on connection: VarlinkConnectionContext, _ responder: VarlinkResponder) -> WriteOrigin {
        .loop(NIOWriteLoop(loop: connection.eventLoop, mailbox: connection.mailbox), alone: responder.alone)
    }
}

/// A NIO event loop as the store sees it.
struct NIOWriteLoop: WriteLoop {
    let loop: any EventLoop
    /// The loop's mailbox: its flush round takes the replies the tick's
    /// commit answers, flushed together when the commit returns.
    let mailbox: LoopMailbox

    var identity: ObjectIdentifier { ObjectIdentifier(loop) }
    var isCurrent: Bool { loop.inEventLoop }

    func executeAfterTick(_ work: @escaping @Sendable () -> Void) {
        mailbox.executeAfterTick(work)
    }
}
