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
