public import NIOCore
public import NIOPosix
public import PropdJSON

/// A client connection to a Varlink service on a Unix socket.
///
/// Safe to share: many tasks may call concurrently; calls are pipelined
/// (sent without waiting) and each caller gets its own reply.
///
/// ```swift
/// let connection = try await VarlinkConnection.connect(to: "/run/propd/propd.sock")
/// let info = try await connection.call("org.varlink.service.GetInfo")
/// for try await reply in connection.stream("org.example.Watch", ["key": "a"]) { print(reply) }
/// ```
///
/// > Tip: A streaming call owns the connection while it lasts (Varlink
/// > answers calls in order), so give each long-lived stream its own connection.
public final class VarlinkConnection: Sendable {
    /// The socket path connected to.
    public let path: String
    private let channel: any Channel

    private init(path: String, channel: any Channel) {
        self.path = path
        self.channel = channel
    }

    /// Connects to the service listening at `path`.
    ///
    /// - Throws: ``VarlinkConnectionError`` with code `cannotConnect` naming the path.
    public static func connect(
        to path: String,
        maximumMessageSize: Int = VarlinkFrameDecoder.defaultMaximumMessageSize,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(VarlinkConnectionError) -> VarlinkConnection {
        let bootstrap = ClientBootstrap(group: eventLoopGroup).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandlers([
                    ByteToMessageHandler(VarlinkFrameDecoder(maximumMessageSize: maximumMessageSize)),
                    VarlinkMessageEncoder(),
                    VarlinkClientHandler(path: path),
                ])
            }
        }
        do {
            let channel = try await bootstrap.connect(unixDomainSocketPath: path).get()
            return VarlinkConnection(path: path, channel: channel)
        } catch {
            throw VarlinkConnectionError(code: .cannotConnect, path: path, reason: "\(error)")
        }
    }

    /// Whether the connection is still open.
    public var isOpen: Bool { channel.isActive }

    /// Calls `method` and returns its reply's parameters.
    ///
    /// - Throws: ``VarlinkCallError`` when the service answers with an error,
    ///   ``VarlinkConnectionError`` when the connection fails first.
    public func call(_ method: String, _ parameters: [String: JSONValue] = [:]) async throws
        -> [String: JSONValue]
    {
        let reply = channel.eventLoop.makePromise(of: [String: JSONValue].self)
        send(VarlinkClientRequest(call: VarlinkCall(method: method, parameters: parameters), receiver: .reply(reply)))
        return try await reply.futureResult.get()
    }

    /// Calls `method` with `more` and yields each reply's parameters until
    /// the last. Ending the iteration early closes the connection: Varlink
    /// has no other way to stop a stream.
    public func stream(_ method: String, _ parameters: [String: JSONValue] = [:])
        -> AsyncThrowingStream<[String: JSONValue], any Error>
    {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [String: JSONValue].self)
        let channel = self.channel
        continuation.onTermination = { termination in
            if case .cancelled = termination { channel.close(promise: nil) }
        }
        send(
            VarlinkClientRequest(
                call: VarlinkCall(method: method, parameters: parameters, more: true), receiver: .stream(continuation)))
        return stream
    }

    /// Sends a `oneway` call: the service answers nothing. Returns once it is written.
    public func callOneway(_ method: String, _ parameters: [String: JSONValue] = [:]) async throws {
        let written = channel.eventLoop.makePromise(of: Void.self)
        channel.write(
            VarlinkClientRequest(call: VarlinkCall(method: method, parameters: parameters, oneway: true), receiver: .none),
            promise: written)
        do {
            try await written.futureResult.get()
        } catch {
            throw VarlinkConnectionError(code: .connectionClosed, path: path, reason: "\(error)")
        }
    }

    /// Closes the connection; calls still waiting fail with `connectionClosed`.
    public func close() async {
        try? await channel.close()
    }

    private func send(_ request: VarlinkClientRequest) {
        let written = channel.eventLoop.makePromise(of: Void.self)
        let path = self.path
        written.futureResult.whenFailure { error in
            // The handler never saw the request (the channel was already
            // gone): fail its receiver here. Completing twice is harmless.
            let closed = VarlinkConnectionError(code: .connectionClosed, path: path, reason: "\(error)")
            switch request.receiver {
            case .reply(let promise): promise.fail(closed)
            case .stream(let continuation): continuation.finish(throwing: closed)
            case .none: break
            }
        }
        channel.write(request, promise: written)
    }
}
