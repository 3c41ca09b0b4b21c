import EtcdAPI
import GRPCCore
import NIOCore
import Synchronization

extension EtcdClient {
    /// Watches a key or a range from `startRevision` (inclusive; 0 for "from
    /// now"), calling `onUpdate` with every change in revision order, until
    /// the task is cancelled or `onUpdate` throws (the watch rethrows it).
    ///
    /// `onUpdate` runs on ``transactionLoop``, where the watch's messages are
    /// read: it must not block, and a caller there sees each update in the
    /// turn of the loop that read it.
    ///
    /// ```swift
    /// try await etcd.watch(.prefix(Array("/app/".utf8)), from: lastSeen + 1) { update in
    ///     if case .events(let events) = update {
    ///         for event in events { lastSeen = event.keyValue.modRevision }
    ///     }
    /// }
    /// ```
    ///
    /// When the member serving the watch dies, loses its leader, or stops
    /// answering (its host hung, its packets dropped: nothing heard for
    /// twice `requestTimeout` despite a progress request every
    /// `requestTimeout`), the watch moves to another member and resumes
    /// after the last revision delivered, so nothing is skipped or
    /// repeated; it keeps trying for as long as the cluster is
    /// unreachable. When etcd has compacted past the revision the
    /// watch needs, it throws ``EtcdError/Code/compacted`` with
    /// `compactRevision`: re-read the range at the current revision, then
    /// watch from there.
    ///
    /// - Parameters:
    ///   - progressNotify: ask etcd for a `.progress` update after a quiet
    ///     spell (etcd's `--experimental-watch-progress-notify-interval`, 10
    ///     minutes by default).
    ///   - knownThrough: the revision through which the caller already has
    ///     every change under `keys` (a mirror that applies its own
    ///     transactions from their replies), asked on ``transactionLoop`` as
    ///     each message arrives: a message whose events all lie at or below
    ///     it is passed over undecoded, and the watch goes on after it.
    public func watch(
        _ keys: EtcdKeyRange,
        from startRevision: Int64,
        previousValues: Bool = false,
        progressNotify: Bool = false,
        knownThrough: (@Sendable () -> Int64)? = nil,
        onUpdate: @escaping @Sendable (EtcdWatchUpdate) throws -> Void
    ) async throws -> Never {
        let position = WatchPosition(startRevision)
        var pause = Duration.milliseconds(50)
        while true {
            for member in memberOrder() {
                do {
                    try await watchOnce(
                        member, keys, position: position, previousValues: previousValues,
                        progressNotify: progressNotify, knownThrough: knownThrough, onUpdate: onUpdate)
                } catch let failed as UpdateFailed {
                    throw failed.error
                } catch {
                    try Self.continueStream(after: error)
                }
                if Task.isCancelled { throw CancellationError() }
            }
            // Every member failed: the cluster is down or electing. A watch
            // waits it out rather than failing its subscribers.
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(1))
        }
    }

    /// One watch stream on one member; returns or throws when it ends.
    private func watchOnce(
        _ member: EtcdMember,
        _ keys: EtcdKeyRange,
        position: WatchPosition,
        previousValues: Bool,
        progressNotify: Bool,
        knownThrough: (@Sendable () -> Int64)?,
        onUpdate: @escaping @Sendable (EtcdWatchUpdate) throws -> Void
    ) async throws {
        var create = Etcdserverpb_WatchCreateRequest()
        create.key = .init(keys.key)
        create.rangeEnd = .init(keys.rangeEnd)
        create.startRevision = position.next
        create.prevKv = previousValues
        create.progressNotify = progressNotify
        let request = Etcdserverpb_WatchRequest.with { $0.createRequest = create }
        let heard = StreamSilence()
        let call = member.loopConnection.stream(
            "/etcdserverpb.Watch/Watch", request, metadata: [EtcdMember.requireLeaderEntry]
        ) { message in
            heard.heard()
            if let knownThrough, let revision = WatchResponsePeek.newestEventRevision(message), revision <= knownThrough() {
                position.passOver(through: revision)
                return
            }
            let response = try Etcdserverpb_WatchResponse(serializedBytes: Array(message.readableBytesView))
            guard let update = try position.advance(by: response) else { return }
            do {
                try onUpdate(update)
            } catch {
                throw UpdateFailed(error: error)
            }
        }
        // etcd ends the watch when the client closes its side, so the request
        // side stays open. It asks for progress, which etcd answers at once:
        // a member that answers nothing is left (StreamSilence).
        let probe = configuration.requestTimeout
        let probing = member.loopConnection.loop.scheduleRepeatedTask(initialDelay: .init(probe), delay: .init(probe)) { _ in
            if heard.silence > probe * 2 {
                call.cancel(with: StreamSilence.Exceeded())
            } else {
                call.send(Etcdserverpb_WatchRequest.with { $0.progressRequest = .init() })
            }
        }
        defer { probing.cancel() }
        do {
            try await withTaskCancellationHandler {
                try await call.ended.get()
            } onCancel: {
                call.cancel(with: CancellationError())
            }
        } catch {
            throw heard.cause(of: error, limit: probe * 2, on: member.endpoint)
        }
    }
}

/// What `onUpdate` threw: it ends the watch, whichever member served it.
private struct UpdateFailed: Error {
    var error: any Error
}

/// The next revision a watch needs: one past the last it delivered.
private final class WatchPosition: Sendable {
    private let nextRevision: Mutex<Int64>

    init(_ start: Int64) { nextRevision = Mutex(start) }

    var next: Int64 { nextRevision.withLock { $0 } }

    /// The caller had every revision through `revision`: resume after it.
    func passOver(through revision: Int64) {
        nextRevision.withLock { $0 = max($0, revision + 1) }
    }

    /// Reads one response: the update to deliver, if any, and where to resume.
    func advance(by response: Etcdserverpb_WatchResponse) throws -> EtcdWatchUpdate? {
        // The answer to a progress request (etcd 3.4 sends it on the stream
        // at once, watch ID -1): its revision may run ahead of events still
        // on their way, so it says only that the member is there.
        if response.watchID == -1 { return nil }
        if response.compactRevision > 0 {
            throw EtcdError(
                .compacted,
                "the watch needs revision \(next), compacted up to \(response.compactRevision)",
                compactRevision: response.compactRevision)
        }
        if response.canceled {
            // e.g. "etcdserver: no leader": the member lost its quorum.
            throw RPCError(code: .unavailable, message: response.cancelReason)
        }
        return nextRevision.withLock { next in
            if response.created {
                // From "now": the watch starts after the revision it was created at.
                if next == 0 { next = response.header.revision + 1 }
                return nil
            }
            guard let last = response.events.last else {
                next = max(next, response.header.revision + 1)
                return .progress(revision: response.header.revision)
            }
            next = last.kv.modRevision + 1
            return .events(response.events.map(EtcdEvent.init))
        }
    }
}
