public import PropdJSON
import NIOCore

/// Answers one call, exactly once, from any thread.
///
/// The reply is sent in call order: if earlier calls on the connection are
/// still running it waits for them. Answering twice is ignored; never
/// answering stalls the connection's later replies, so every path must answer.
public struct VarlinkResponder: Sendable {
    let connection: NIOLoopBound<VarlinkConnectionHandler>
    let mailbox: LoopMailbox
    let sequence: Int
    /// Whether the call was all its connection had in flight when it
    /// started: no earlier call still running, none waiting behind it (a
    /// client waiting for each reply, rather than pipelining).
    public let alone: Bool

    var eventLoop: any EventLoop { mailbox.eventLoop }

    /// Answers with `parameters`.
    public func succeed(_ parameters: [String: JSONValue]) {
        deliver(.success(parameters))
    }

    /// Answers with an error; anything but a ``VarlinkCallError`` is logged
    /// and answered with the server's unexpected-error reply.
    public func fail(_ error: any Error) {
        deliver(.failure(error))
    }

    /// Runs `work` on the connection's event loop: at once when called
    /// there, otherwise through the loop's mailbox, with whatever else other
    /// threads hand that loop meanwhile.
    func onEventLoop(_ work: @escaping @Sendable () -> Void) {
        if eventLoop.inEventLoop {
            work()
        } else {
            mailbox.post(work)
        }
    }

    private func deliver(_ result: Result<[String: JSONValue], any Error>) {
        let connection = self.connection
        let sequence = self.sequence
        onEventLoop { connection.value.complete(sequence: sequence, with: result) }
    }
}

extension VarlinkResponder {
    /// Answers many calls at once (a writer completing a whole group
    /// commit): each loop's answers reach it together, through its mailbox.
    ///
    /// ```swift
    /// VarlinkResponder.answer(batch.map { ($0.responder, .success(["revision": .integer(revision)])) })
    /// ```
    public static func answer(_ answers: [(VarlinkResponder, Result<[String: JSONValue], any Error>)]) {
        for (responder, result) in answers { responder.deliver(result) }
    }
}
