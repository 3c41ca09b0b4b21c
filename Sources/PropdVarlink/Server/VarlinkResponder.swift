public import PropdJSON
import NIOCore

/// Answers one call, exactly once, from any thread.
///
/// The reply is sent in call order: if earlier calls on the connection are
/// still running it waits for them. Answering twice is ignored; never
/// answering stalls the connection's later replies, so every path must answer.
public struct VarlinkResponder: Sendable {
    let connection: NIOLoopBound<VarlinkConnectionHandler>
    let eventLoop: any EventLoop
    let sequence: Int

    /// Answers with `parameters`.
    public func succeed(_ parameters: [String: JSONValue]) {
        deliver(.success(parameters))
    }

    /// Answers with an error; anything but a ``VarlinkCallError`` is logged
    /// and answered with the server's unexpected-error reply.
    public func fail(_ error: any Error) {
        deliver(.failure(error))
    }

    private func deliver(_ result: Result<[String: JSONValue], any Error>) {
        if eventLoop.inEventLoop {
            connection.value.complete(sequence: sequence, with: result)
        } else {
            let connection = self.connection
            let sequence = self.sequence
            eventLoop.execute { connection.value.complete(sequence: sequence, with: result) }
        }
    }
}

extension VarlinkResponder {
    /// Answers many calls at once with one hop per event loop instead of one
    /// per call: for a writer that completes a whole group commit together.
    ///
    /// ```swift
    /// VarlinkResponder.answer(batch.map { ($0.responder, .success(["revision": .integer(revision)])) })
    /// ```
    public static func answer(_ answers: [(VarlinkResponder, Result<[String: JSONValue], any Error>)]) {
        var byLoop: [ObjectIdentifier: (any EventLoop, [(VarlinkResponder, Result<[String: JSONValue], any Error>)])] = [:]
        for answer in answers {
            let loop = answer.0.eventLoop
            byLoop[ObjectIdentifier(loop), default: (loop, [])].1.append(answer)
        }
        for (loop, group) in byLoop.values {
            if loop.inEventLoop {
                for (responder, result) in group {
                    responder.connection.value.complete(sequence: responder.sequence, with: result)
                }
            } else {
                loop.execute {
                    for (responder, result) in group {
                        responder.connection.value.complete(sequence: responder.sequence, with: result)
                    }
                }
            }
        }
    }
}
