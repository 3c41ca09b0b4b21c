import Logging
import PropdCore
import PropdEtcd
import PropdService
import Synchronization

/// Command invocations between the nodes of a cluster, through etcd, beside
/// the space's prefix (never in a node's mirror):
///
/// ```
/// PREFIX.commands/serving/NODE         the commands NODE's handlers serve, one a line (NODE's lease)
/// PREFIX.commands/invocations/NODE/ID  an execution for NODE's handlers: {"command", "argument", "from"}
/// PREFIX.commands/endings/NODE/ID      how it ended, for NODE, which executed it
/// ```
///
/// The node that executes writes the start and end revisions, arms the
/// timeout and answers `Execute`; the node whose handler runs it only
/// delivers the invocation and sends the handler's answer back. Keys of a
/// node that dies go with its lease: its executions elsewhere end with
/// `NoHandler`.
final class EtcdCommandRelay: CommandRelay {
    private struct State {
        /// What each other node's handlers serve.
        var serving: [String: Set<Key>] = [:]
        var turn = 0
        /// Executions sent elsewhere: the node each went to.
        var sent: [String: String] = [:]
        /// What this node's handlers serve, to announce.
        var announced: Set<Key> = []
        var lease: Int64?
        var service: PropertyService?
        /// Wakes the current term's announcer (a term: one lease).
        var announcer: AsyncStream<Void>.Continuation?
        /// Who waits on ``servingChanges()``, by the number each got.
        var servingObservers: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextObserver = 0

        /// Sets what `other` serves (`nil`: it left); the observers to wake.
        mutating func setServing(_ commands: Set<Key>?, of other: String) -> [AsyncStream<Void>.Continuation] {
            serving[other] = commands
            return Array(servingObservers.values)
        }
    }

    let node: String
    private let etcd: EtcdClient
    private let base: [UInt8]
    private let logger: Logger
    /// The time to live of this node's lease (`--etcd-lease`): how long its
    /// handlers stay announced after it died.
    private let leaseSeconds: Int64
    private let state = Mutex(State())

    init(etcd: EtcdClient, prefix: String, leaseSeconds: Int64, logger: Logger) {
        self.etcd = etcd
        self.leaseSeconds = leaseSeconds
        self.logger = logger
        var trimmed = Array(prefix.utf8)
        while trimmed.last == UInt8(ascii: "/") { trimmed.removeLast() }
        base = trimmed + Array(".commands/".utf8)
        var generator = SystemRandomNumberGenerator()
        node = String(generator.next() as UInt64, radix: 36)
    }

    /// Executions sent elsewhere that have not ended here. Bounded: each
    /// goes when it ends (answered, its timeout, its node gone), whether or
    /// not the other node ever answers.
    var executionsInFlight: Int { state.withLock { $0.sent.count } }

    // MARK: CommandRelay

    func serves(_ command: Key) -> Bool {
        state.withLock { $0.serving.values.contains { $0.contains(command) } }
    }

    /// Yields at once and after each change to what other nodes' handlers
    /// serve (``serves(_:)``), for whoever needs a command served elsewhere
    /// before going on: it waits on this rather than asking again and again.
    func servingChanges() -> AsyncStream<Void> {
        let (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let number = state.withLock { state in
            defer { state.nextObserver += 1 }
            state.servingObservers[state.nextObserver] = continuation
            return state.nextObserver
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.servingObservers.removeValue(forKey: number) }
        }
        continuation.yield()
        return changes
    }

    func send(_ invocation: Invocation) {
        let target: String? = state.withLock { state in
            let nodes = state.serving.filter { $0.value.contains(invocation.command) }.keys.sorted()
            guard !nodes.isEmpty else { return nil }
            state.turn &+= 1
            let chosen = nodes[state.turn % nodes.count]
            state.sent[invocation.id] = chosen
            return chosen
        }
        guard let target else { return end(invocation.id, .handlerLeft) }
        var message: [String: JSONValue] = ["command": .string(invocation.command.rawValue), "from": .string(node)]
        if let argument = invocation.argument { message["argument"] = argument }
        let key = base + Array("invocations/\(target)/\(invocation.id)".utf8)
        let lease = state.withLock { $0.lease } ?? 0
        Task { [etcd] in
            do {
                // With this node's lease: if it dies, the invocation goes too.
                _ = try await etcd.put(key, JSONValue.object(message).jsonBytes, lease: lease)
            } catch {
                end(invocation.id, .handlerLeft)
            }
        }
    }

    func ended(_ id: String) {
        let target = state.withLock { $0.sent.removeValue(forKey: id) }
        let keys = [base + Array("endings/\(node)/\(id)".utf8)]
            + (target.map { [base + Array("invocations/\($0)/\(id)".utf8)] } ?? [])
        Task { [etcd] in
            // Left behind when etcd is unreachable: the keys are small, and go with the lease.
            for key in keys { _ = try? await etcd.delete(.key(key)) }
        }
    }

    func announce(_ commands: Set<Key>) {
        let announcer = state.withLock { state in
            state.announced = commands
            return state.announcer
        }
        announcer?.yield()
    }

    // MARK: Running

    /// Serves as the relay of `service` until cancelled; then revokes its
    /// lease, so its handlers are no longer announced.
    func run(for service: PropertyService) async {
        state.withLock { $0.service = service }
        var pause = Duration.milliseconds(100)
        while !Task.isCancelled {
            var lease: EtcdLease?
            do {
                let granted = try await etcd.grantLease(ttl: leaseSeconds)
                lease = granted
                // A stream per term: cancelling a task that iterates one ends it.
                let (announcements, announcer) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
                state.withLock { state in
                    state.lease = granted.id
                    state.announcer = announcer
                }
                pause = .milliseconds(100)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { [etcd] in try await etcd.keepAlive(granted) }
                    group.addTask { try await self.announceServing(announcements, lease: granted.id) }
                    group.addTask { try await self.follow() }
                    try await group.next()
                }
            } catch {
                // A restart withdraws this node's handlers until the next term
                // announces them again, ending what other nodes sent here.
                if !Task.isCancelled {
                    logger.warning("command relay restarts", metadata: ["error": "\(error)"])
                }
            }
            if let lease {
                // Not cancelled with the relay: other nodes should stop sending here now.
                await Task { [etcd] in try? await etcd.revokeLease(lease.id) }.value
            }
            if Task.isCancelled { break }
            // Retry pacing while etcd refuses, not a synchronization.
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(2))
        }
        state.withLock { $0.service = nil }
    }

    /// Puts this node's served commands whenever they change (first at once).
    private func announceServing(_ announcements: AsyncStream<Void>, lease: Int64) async throws {
        let key = base + Array("serving/\(node)".utf8)
        state.withLock { $0.announcer }?.yield()
        for await _ in announcements {
            let commands = state.withLock { $0.announced }.map(\.rawValue).sorted()
            if commands.isEmpty {
                _ = try await etcd.delete(.key(key))
            } else {
                _ = try await etcd.put(key, Array(commands.joined(separator: "\n").utf8), lease: lease)
            }
        }
        throw CancellationError()
    }

    /// Reads what other nodes serve, then follows it and this node's invocations and endings.
    private func follow() async throws {
        let read = try await etcd.range(.prefix(base))
        for kv in read.keyValues { apply(EtcdEvent(kind: .put, keyValue: kv)) }
        try await etcd.watch(.prefix(base), from: read.revision + 1) { [self] update in
            guard case .events(let events) = update else { return }
            for event in events { apply(event) }
        }
    }

    private func apply(_ event: EtcdEvent) {
        guard event.keyValue.key.starts(with: base) else { return }
        let path = String(decoding: event.keyValue.key.dropFirst(base.count), as: UTF8.self).split(separator: "/")
        switch (path.first, path.count) {
        case ("serving"?, 2) where path[1] != node:
            let other = String(path[1])
            if event.kind == .delete {
                nodeLeft(other)
            } else {
                let commands = String(decoding: event.keyValue.value, as: UTF8.self).split(separator: "\n")
                    .compactMap { try? Key(String($0)) }
                for observer in state.withLock({ $0.setServing(Set(commands), of: other) }) { observer.yield() }
            }
        case ("invocations"?, 3) where path[1] == node:
            if event.kind == .put {
                received(id: String(path[2]), event.keyValue.value)
            } else {
                // The executing node ended it (answered, timed out) or is gone.
                state.withLock { $0.service }?.forgetReceived(String(path[2]))
            }
        case ("endings"?, 3) where path[1] == node && event.kind == .put:
            let id = String(path[2])
            guard let message = try? JSONValue(parsingUTF8: event.keyValue.value) else { return }
            end(id, Self.ending(message))
        default:
            return
        }
    }

    /// An invocation for this node's handlers: their answer goes back to the node that executed it.
    private func received(id: String, _ bytes: [UInt8]) {
        guard let service = state.withLock({ $0.service }),
            let message = try? JSONValue(parsingUTF8: bytes),
            case .string(let command)? = message["command"], let key = try? Key(command),
            case .string(let from)? = message["from"]
        else { return }
        let argument = message["argument"].flatMap { $0 == .null ? nil : $0 }
        let reply = base + Array("endings/\(from)/\(id)".utf8)
        service.receive(Invocation(id: id, command: key, argument: argument)) { [etcd, logger] ending in
            Task {
                do {
                    _ = try await etcd.put(reply, Self.message(ending).jsonBytes)
                } catch {
                    // The executing node's timeout ends it.
                    logger.warning("a command's answer could not reach its node", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// Ends an execution sent elsewhere (its end calls ``ended(_:)``, which
    /// clears its keys; so does this, for one that had ended already).
    private func end(_ id: String, _ ending: ExecutionEnding) {
        state.withLock { $0.service }?.receiveEnding(of: id, ending)
        ended(id)
    }

    /// Another node's handlers are gone (it stopped, or its lease expired):
    /// what it was running ends with `NoHandler`.
    private func nodeLeft(_ other: String) {
        let (orphans, observers) = state.withLock { state in
            let observers = state.setServing(nil, of: other)
            return (state.sent.filter { $0.value == other }.map(\.key), observers)
        }
        for observer in observers { observer.yield() }
        for id in orphans { end(id, .handlerLeft) }
    }

    static func message(_ ending: ExecutionEnding) -> JSONValue {
        switch ending {
        case .completed(let result): return ["completed": true, "result": result ?? .null]
        case .failed(let message): return ["error": .string(message)]
        case .timedOut, .handlerLeft: return ["handlerLeft": true]
        }
    }

    static func ending(_ message: JSONValue) -> ExecutionEnding {
        if case .string(let error)? = message["error"] { return .failed(error) }
        if message["completed"] == true {
            let result = message["result"]
            return .completed(result == .null ? nil : result)
        }
        return .handlerLeft
    }
}
