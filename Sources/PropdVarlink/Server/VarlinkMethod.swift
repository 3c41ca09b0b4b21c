public import PropdJSON

/// One method of an interface and the code that answers it.
///
/// Four shapes, from cheapest to most general:
///
/// ```swift
/// // Runs on the connection's event loop; no thread hop. Must not block.
/// .synchronous("Ping") { call, connection in ["pong": call.parameters["ping"] ?? nil] }
/// // Runs in a Task; for work that awaits.
/// .asynchronous("Get") { call, connection in try await store.get(call) }
/// // Answer later from any thread, without a Task (e.g. from a writer queue).
/// .responding("Set") { call, connection, responder in queue.enqueue(call, responder) }
/// // Several replies; requires `more` (else org.varlink.service.ExpectedMore).
/// .streaming("Subscribe") { call, connection, stream in hub.add(stream) }
/// ```
public struct VarlinkMethod: Sendable {
    /// The unqualified method name, e.g. `GetInfo`.
    public let name: String
    let body: Body
    /// See ``startingAfterEarlierCalls()``.
    private(set) var startsAfterEarlierCalls = false
    /// See ``decodingDirectly(_:then:)``.
    private(set) var directDecoder: DirectDecoder?

    /// Reads a call's parameters from its frame, positioned at their value,
    /// and returns what starts the call; `nil` to leave it to ``body``.
    @usableFromInline typealias DirectDecoder = @Sendable (inout JSONReader) -> DirectStart?
    /// Starts a call decoded directly, answering through the responder.
    @usableFromInline typealias DirectStart = @Sendable (VarlinkConnectionContext, VarlinkResponder) -> Void

    enum Body: Sendable {
        case synchronous(@Sendable (VarlinkCall, VarlinkConnectionContext) throws -> [String: JSONValue])
        case responding(@Sendable (VarlinkCall, VarlinkConnectionContext, VarlinkResponder) -> Void)
        case streaming(@Sendable (VarlinkCall, VarlinkConnectionContext, VarlinkReplyStream) -> Void)
    }

    /// Whether a call must be made with `more` (a streaming-only method).
    public var requiresMore: Bool {
        if case .streaming = body { return true }
        return false
    }

    /// The method, whose calls start only once every earlier call on their
    /// connection is answered. For reads: a read then sees exactly the
    /// effects of the calls sent before it (a write still running is
    /// answered first), and a pipelined run of reads of big values behind a
    /// running call is made one reply at a time as the connection has room,
    /// instead of all at once when that call ends. Calls answered at once
    /// before them cost nothing: they are answered already.
    public func startingAfterEarlierCalls() -> VarlinkMethod {
        var method = self
        method.startsAfterEarlierCalls = true
        return method
    }

    /// The method, whose calls' parameters are read straight from the
    /// frame's bytes by `decode` into the value `start` takes, when the
    /// message has the usual shape (`method`, then `parameters`, then at
    /// most `oneway`, `more: false`, `upgrade: false`): no ``JSONValue``
    /// tree of the message, no parameter dictionary. For a write answered
    /// thousands of times a second.
    ///
    /// `decode` returns `nil` for whatever it does not expect, or not fully
    /// valid, input (a bad key, an unknown or repeated member, another
    /// shape), and may throw where the JSON is malformed: the call is then
    /// decoded the usual way and handled by the method's own body, so every
    /// error is the one the body gives. `decode` must not have effects.
    /// `start` answers through the responder, at once or later, whatever
    /// the method's shape (a ``synchronous(_:_:)`` read answers at once); a
    /// streaming method is never decoded so.
    ///
    /// ```swift
    /// .responding("Set") { call, connection, responder in set(call, connection, responder) }
    ///     .decodingDirectly(SetParameters.init(reading:)) { parameters, connection, responder in
    ///         set(parameters, connection, responder)
    ///     }
    /// ```
    ///
    /// Inlinable so that the decoder is specialized in the module that
    /// calls this: unspecialized, each call looked up `T`'s metadata.
    @inlinable
    public func decodingDirectly<T: Sendable>(
        _ decode: @escaping @Sendable (inout JSONReader) throws(JSONParseError) -> T?,
        then start: @escaping @Sendable (T, VarlinkConnectionContext, VarlinkResponder) -> Void
    ) -> VarlinkMethod {
        withDirectDecoder { reader in
            guard let decoded = try? decode(&reader) else { return nil }
            return { connection, responder in start(decoded, connection, responder) }
        }
    }

    /// The method, with `decoder` as its direct decoder.
    @usableFromInline
    func withDirectDecoder(_ decoder: @escaping DirectDecoder) -> VarlinkMethod {
        var method = self
        method.directDecoder = decoder
        return method
    }

    /// A method answered on the event loop that received the call. Throw a
    /// ``VarlinkCallError`` to answer with an error.
    public static func synchronous(
        _ name: String,
        _ body: @escaping @Sendable (VarlinkCall, VarlinkConnectionContext) throws -> [String: JSONValue]
    ) -> VarlinkMethod {
        VarlinkMethod(name: name, body: .synchronous(body))
    }

    /// A method answered by an async function running in its own Task.
    /// Calls pipelined on one connection run concurrently; their replies are
    /// still sent in call order.
    public static func asynchronous(
        _ name: String,
        _ body: @escaping @Sendable (VarlinkCall, VarlinkConnectionContext) async throws -> [String: JSONValue]
    ) -> VarlinkMethod {
        VarlinkMethod(
            name: name,
            body: .responding { call, connection, responder in
                Task {
                    do {
                        responder.succeed(try await body(call, connection))
                    } catch {
                        responder.fail(error)
                    }
                }
            })
    }

    /// A method that answers through `responder`, exactly once, from any thread.
    public static func responding(
        _ name: String,
        _ body: @escaping @Sendable (VarlinkCall, VarlinkConnectionContext, VarlinkResponder) -> Void
    ) -> VarlinkMethod {
        VarlinkMethod(name: name, body: .responding(body))
    }

    /// A streaming method: `body` keeps `stream` and sends replies through it
    /// until it calls one of its `finish` methods. Calls after it on the same
    /// connection wait until it finishes (Varlink answers in order).
    public static func streaming(
        _ name: String,
        _ body: @escaping @Sendable (VarlinkCall, VarlinkConnectionContext, VarlinkReplyStream) -> Void
    ) -> VarlinkMethod {
        VarlinkMethod(name: name, body: .streaming(body))
    }
}
