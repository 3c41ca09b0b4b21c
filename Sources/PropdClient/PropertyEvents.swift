public import PropdCore
import PropdVarlink
import PropdWire

extension PropdClient {
    /// The current values of matching keys, then every change (RACObserve).
    ///
    /// When the connection drops — the daemon restarted, or ended the stream
    /// with `SlowConsumer` — the sequence reconnects by itself and resumes
    /// from the last revision it delivered, so the consumer sees every
    /// revision exactly once. A `synced` event follows each (re)connection's backlog.
    ///
    /// ```swift
    /// for try await event in client.observe(["room.**"]) {
    ///     if event.kind == .set { print(event.key, event.value!) }
    /// }
    /// ```
    /// > Tip: the sequence ends with an error only for what reconnecting cannot
    /// > fix (an invalid pattern, history compacted past the resume point);
    /// > cancel the iterating task to stop it.
    ///
    /// - Parameter connectionChanges: told when the connection is lost and
    ///   when a new one resumes the subscription (to show a person).
    public func observe(
        _ patterns: [String], since: Revision? = nil, replay: Int? = nil, initial: Bool? = nil, coalesce: Bool? = nil,
        connectionChanges: (@Sendable (PropertyEvents.ConnectionChange) -> Void)? = nil
    ) -> PropertyEvents {
        PropertyEvents(
            socketPath: socketPath,
            request: PropertyEvents.Request(
                patterns: patterns, since: since, replay: replay, initial: initial, coalesce: coalesce),
            connectionChanges: connectionChanges)
    }
}

/// The events of a subscription, resumed across reconnections.
/// See ``PropdClient/observe(_:since:replay:initial:coalesce:)``.
public struct PropertyEvents: AsyncSequence, Sendable {
    public typealias Element = Event
    public typealias Failure = PropdClientError

    struct Request: Sendable {
        var patterns: [String]
        var since: Revision?
        var replay: Int?
        var initial: Bool?
        var coalesce: Bool?

        func parameters(resumingAfter resume: Revision?) -> [String: JSONValue] {
            // Resuming replaces replay and initial: the events since are what is missing.
            let since = resume ?? since
            return IOPropdCall.subscribe(
                patterns: patterns, since: since, replay: since == nil ? replay : nil,
                initial: since == nil ? initial : nil, coalesce: coalesce
            ).parameters
        }
    }

    /// A change of the subscription's connection.
    public enum ConnectionChange: Sendable, Equatable {
        /// The connection ended (the daemon stopped or restarted, or ended a
        /// lagging subscription); the sequence keeps trying to reconnect.
        case lost(PropdClientError)
        /// A new connection resumed the subscription after this revision.
        case resumed(after: Revision?)
    }

    let socketPath: String
    let request: Request
    let connectionChanges: (@Sendable (ConnectionChange) -> Void)?

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(socketPath: socketPath, request: request, connectionChanges: connectionChanges)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let socketPath: String
        let request: Request
        let connectionChanges: (@Sendable (ConnectionChange) -> Void)?
        private var connection: VarlinkConnection?
        private var replies: AsyncThrowingStream<[String: JSONValue], any Error>.AsyncIterator?
        private var position = ResumePosition()
        private var hasConnected = false
        private var reconnectDelay: Duration = .milliseconds(50)

        /// Whether the last connection was lost and not yet resumed.
        private var lost = false

        init(socketPath: String, request: Request, connectionChanges: (@Sendable (ConnectionChange) -> Void)?) {
            self.socketPath = socketPath
            self.request = request
            self.connectionChanges = connectionChanges
        }

        public mutating func next() async throws(PropdClientError) -> Event? {
            while !Task.isCancelled {
                if replies == nil { try await open() }
                do {
                    guard let reply = try await replies?.next() else {
                        // The daemon ended the stream (it is shutting down): resume.
                        drop()
                        report(.lost(.connectionClosed(path: socketPath, reason: "the daemon ended the subscription")))
                        continue
                    }
                    guard case .object? = reply["event"] else {
                        continue  // a final reply without an event
                    }
                    let event: Event
                    do {
                        event = try EventReply(parameters: reply).event
                    } catch {
                        throw PropdClientError.malformedReply(error.message)
                    }
                    guard position.admit(event) else { continue }
                    reconnectDelay = .milliseconds(50)
                    return event
                } catch {
                    let failure = PropdClientError.from(error, path: socketPath)
                    switch failure {
                    case .refused(.slowConsumer), .connectionClosed, .cannotConnect:
                        drop()  // resume from the last complete revision
                        report(.lost(failure))
                    default:
                        drop()
                        throw failure
                    }
                }
            }
            await connection?.close()
            return nil
        }

        private mutating func report(_ change: ConnectionChange) {
            if case .lost = change { lost = true }
            connectionChanges?(change)
        }

        private mutating func drop() {
            replies = nil
            let stale = connection
            connection = nil
            if let stale { Task { await stale.close() } }
        }

        /// Opens a connection and subscribes, resuming where the last one
        /// stopped. Only the very first failure to connect is an error; after
        /// that the daemon is restarting, so keep trying.
        private mutating func open() async throws(PropdClientError) {
            while !Task.isCancelled {
                do {
                    let connection = try await VarlinkConnection.connect(to: socketPath)
                    self.connection = connection
                    let parameters = request.parameters(resumingAfter: position.resumeRevision)
                    replies = connection.stream(IOPropdMethod.subscribe.qualifiedName, parameters).makeAsyncIterator()
                    position.reconnected()
                    hasConnected = true
                    if lost {
                        lost = false
                        connectionChanges?(.resumed(after: position.resumeRevision))
                    }
                    return
                } catch {
                    let failure = PropdClientError.from(error, path: socketPath)
                    if !hasConnected { throw failure }
                    // Backing off while the daemon restarts is the point of this wait.
                    try? await Task.sleep(for: reconnectDelay)
                    reconnectDelay = Swift.min(reconnectDelay * 2, .seconds(2))
                }
            }
        }
    }
}

/// Which revisions the consumer has seen, so a resumed subscription neither
/// repeats nor skips one. Events of a revision arrive together; a revision
/// is complete once an event of a later revision (or `synced`) arrives.
struct ResumePosition {
    /// The last revision delivered completely.
    private(set) var complete: Revision?
    /// The revision being delivered and the keys of it already delivered.
    private var partial: Revision?
    private var partialKeys: Set<String> = []
    private var resumed = false

    /// `since` for the next subscription; nil until something is known.
    var resumeRevision: Revision? { complete }

    mutating func reconnected() {
        resumed = complete != nil
    }

    /// Whether `event` is new to the consumer (records it when it is).
    mutating func admit(_ event: Event) -> Bool {
        switch event.kind {
        case .synced:
            closePartial()
            if complete.map({ event.revision > $0 }) ?? true { complete = event.revision }
            return true
        case .initial, .replay:
            // Backlog of a first subscription: the synced marker sets the position.
            return !resumed
        case .set, .delete, .error:
            if let complete, event.revision <= complete { return false }
            if event.revision == partial {
                return partialKeys.insert(event.key).inserted
            }
            closePartial()
            partial = event.revision
            partialKeys = [event.key]
            return true
        }
    }

    private mutating func closePartial() {
        if let partial {
            if complete.map({ partial > $0 }) ?? true { complete = partial }
        }
        partial = nil
        partialKeys = []
    }
}
