public import NIOCore
public import NIOPosix
public import PropdJSON

#if canImport(Glibc)
import Glibc
#endif

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
///
/// The socket stays open until ``close()`` (or the service closes it), even
/// when this object is released: a stream being iterated keeps working.
public final class VarlinkConnection: Sendable {
    /// The socket path connected to.
    public let path: String
    private let channel: any Channel
    private let handler: NIOLoopBound<VarlinkClientHandler>

    private init(path: String, channel: any Channel, handler: NIOLoopBound<VarlinkClientHandler>) {
        self.path = path
        self.channel = channel
        self.handler = handler
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
            let handler = try await channel.eventLoop.submit {
                NIOLoopBound(
                    try channel.pipeline.syncOperations.handler(type: VarlinkClientHandler.self),
                    eventLoop: channel.eventLoop)
            }.get()
            return VarlinkConnection(path: path, channel: channel, handler: handler)
        } catch {
            // "No such file or directory" says more to a person than NIO's call trace.
            let reason = (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
            throw VarlinkConnectionError(code: .cannotConnect, path: path, reason: reason)
        }
    }

    /// Whether the connection is still open.
    public var isOpen: Bool { channel.isActive }

    /// The event loop the connection lives on: calls made on it skip a
    /// thread hop, and replies resume from it.
    public var eventLoop: any EventLoop { channel.eventLoop }

    /// Calls `method` and returns its reply's parameters.
    ///
    /// - Throws: ``VarlinkCallError`` when the service answers with an error,
    ///   ``VarlinkConnectionError`` when the connection fails first.
    public func call(_ method: String, _ parameters: [String: JSONValue] = [:]) async throws
        -> [String: JSONValue]
    {
        let call = VarlinkCall(method: method, parameters: parameters)
        return try await withCheckedThrowingContinuation { continuation in
            send(.call(call, continuation))
        }
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
        send(.stream(VarlinkCall(method: method, parameters: parameters, more: true), continuation))
        return stream
    }

    /// Sends a `oneway` call: the service answers nothing. Returns once it is written.
    public func callOneway(_ method: String, _ parameters: [String: JSONValue] = [:]) async throws {
        let written = channel.eventLoop.makePromise(of: Void.self)
        send(.oneway(VarlinkCall(method: method, parameters: parameters, oneway: true), written))
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

    /// Sends `calls` back to back and returns their outcomes in order: one
    /// hop to the event loop and one flush for the lot (a client's cheapest
    /// way to pipeline). Each call gets exactly one reply: `more` and
    /// `oneway` are ignored here.
    ///
    /// ```swift
    /// let results = try await connection.pipeline((0..<64).map {
    ///     VarlinkCall(method: "io.propd.Set", parameters: ["values": ["k": .integer($0)]])
    /// })
    /// ```
    ///
    /// - Throws: ``VarlinkConnectionError`` when the connection fails first.
    public func pipeline(_ calls: [VarlinkCall]) async throws -> [Result<[String: JSONValue], VarlinkCallError>] {
        var plain = calls
        for i in plain.indices {
            plain[i].more = false
            plain[i].oneway = false
        }
        let batch = plain
        return try await withCheckedThrowingContinuation { continuation in
            send(.batch(batch, continuation))
        }
    }

    private func send(_ request: VarlinkClientRequest) {
        let handler = self.handler
        if channel.eventLoop.inEventLoop {
            handler.value.enqueue(request)
        } else {
            channel.eventLoop.execute { handler.value.enqueue(request) }
        }
    }
}
