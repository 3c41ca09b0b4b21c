public import PropdJSON
import NIOCore

/// What a call is answered with, on its way to the connection's loop.
enum VarlinkAnswer: Sendable {
    case parameters([String: JSONValue])
    case encodable(any JSONObjectEncodable)
    case failure(any Error)
}

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
        deliver(.parameters(parameters))
    }

    /// Answers with parameters that write their own JSON (no
    /// ``JSONValue`` tree: for replies sent thousands of times a second).
    public func succeed(_ parameters: some JSONObjectEncodable) {
        deliver(.encodable(parameters))
    }

    /// Answers with an error; anything but a ``VarlinkCallError`` is logged
    /// and answered with the server's unexpected-error reply.
    public func fail(_ error: any Error) {
        deliver(.failure(error))
    }

    /// Hands `answer` to the connection's event loop: at once when called
    /// there, otherwise through the loop's mailbox, with whatever else other
    /// threads hand that loop meanwhile.
    private func deliver(_ answer: VarlinkAnswer) {
        if eventLoop.inEventLoop {
            connection.value.complete(sequence: sequence, with: answer)
        } else {
            mailbox.post(.answer(connection, sequence: sequence, answer))
        }
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
        for (responder, result) in answers {
            switch result {
            case .success(let parameters): responder.deliver(.parameters(parameters))
            case .failure(let error): responder.deliver(.failure(error))
            }
        }
    }
}
