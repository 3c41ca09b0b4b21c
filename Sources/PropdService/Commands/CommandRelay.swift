public import PropdCore

/// Carries command invocations between the nodes of a cluster: an
/// `Execute` on a node where no handler serves the command goes to a node
/// where one does, and the handler's answer comes back to end it where it
/// started (that node writes the end revision and answers `Execute`; its
/// timeout holds as for a local handler).
///
/// ```swift
/// service.attach(relay)                 // the relay calls back:
/// service.receive(invocation) { ending in /* send it to the node that executed */ }
/// service.receiveEnding(of: id, ending) // on the node that executed
/// ```
public protocol CommandRelay: Sendable {
    /// Whether another node's handler serves `command` now.
    func serves(_ command: Key) -> Bool
    /// Hands `invocation` to a node that serves its command; its ending
    /// comes back through ``PropertyService/receiveEnding(of:_:)`` (as
    /// `handlerLeft` when it cannot be delivered).
    func send(_ invocation: Invocation)
    /// The commands this node's own handlers serve now.
    func announce(_ commands: Set<Key>)
    /// An execution sent elsewhere ended here (answered, or by its
    /// timeout): what carried it can go, and the other node forgets it.
    func ended(_ id: String)
}

extension PropertyService {
    /// Lets executions reach handlers on other nodes, and this node's
    /// handlers serve executions from other nodes.
    public func attach(_ relay: any CommandRelay) {
        commands.setRelay(relay)
        relay.announce(commands.servedCommands)
    }

    /// An execution started on another node, for one of this node's
    /// handlers: delivered now (its start revision is written), and its
    /// ending — `Complete`, or the handler leaving — goes to `reply`
    /// instead of being written here. Without a handler here any more,
    /// `reply` gets `handlerLeft` at once.
    public func receive(_ invocation: Invocation, reply: @escaping @Sendable (ExecutionEnding) -> Void) {
        guard let keys = try? CommandKeys(invocation.command),
            let deliver = commands.assignRelayed(invocation, keys: keys, reply: reply)
        else { return reply(.handlerLeft) }
        deliver(invocation)
    }

    /// The node that executed `id` ended it without its answer (its
    /// timeout, or the node is gone): this node's handler is no longer
    /// waited for, and its `Complete` is `NoSuchInvocation`, as after a
    /// local timeout.
    public func forgetReceived(_ id: String) {
        commands.dropRelayed(id)
    }

    /// The handler on another node answered an execution started here: it
    /// ends as a local one would (nothing happens when it ended already,
    /// by its timeout).
    public func receiveEnding(of id: String, _ ending: ExecutionEnding) {
        finish(id, ending)
    }
}
