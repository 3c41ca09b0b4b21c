/// One execution of a command, as `Serve` hands it to exactly one handler,
/// which answers it with `Complete(id, result | error)`.
public struct Invocation: Sendable, Hashable {
    /// Names the execution in `Complete`; unguessable, valid until it is answered.
    public var id: String
    public var command: Key
    /// What `Execute` was given; `nil` when it gave none (or `null`).
    public var argument: JSONValue?

    public init(id: String, command: Key, argument: JSONValue?) {
        self.id = id
        self.command = command
        self.argument = argument
    }
}

/// What a successful `Execute` answers: the handler's result and the
/// revision that ended the execution (`CMD.executing = false`, `CMD.error = null`).
public struct ExecutionResult: Sendable, Hashable {
    /// The handler's result; `nil` when it gave none (or `null`).
    public var result: JSONValue?
    public var revision: Revision

    public init(result: JSONValue?, revision: Revision) {
        self.result = result
        self.revision = revision
    }
}
