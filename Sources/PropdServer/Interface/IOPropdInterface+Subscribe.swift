import NIOCore
import PropdCore
public import PropdService
import PropdVarlink
import PropdWire

extension IOPropdInterface {
    /// The hub encoder that produces Subscribe's whole reply,
    /// `{"parameters":{"event":{…}},"continues":true}` and its NUL, once per
    /// event for every subscriber: a subscriber's connection only copies it out.
    public static let eventFrameEncoder: EventEncoder = { event in
        VarlinkWireFormat.continuingReplyFrame(reservingCapacity: EventEncoding.replyParametersCapacity(event)) { out in
            EventEncoding.encodeReplyParameters(event, into: &out)
        }
    }

    func subscribe(_ call: VarlinkCall, _ connection: VarlinkConnectionContext, _ stream: VarlinkReplyStream) {
        let request: SubscriptionRequest
        do throws(VarlinkCallError) {
            let texts = try call.parameters.requiredStringArray("patterns")
            try checkCount(texts.count, "max-patterns-per-subscription", limits.patternsPerSubscription)
            var patterns: [KeyPattern] = []
            for text in texts {
                let pattern = try WireCoding.pattern(text)
                try access.requireSome(pattern, connection.peer)
                patterns.append(pattern)
            }
            let since = try WireCoding.nonNegative(call.parameters, "since").map { Revision($0) }
            let replay = try WireCoding.nonNegative(call.parameters, "replay").map { Int(clamping: $0) }
            do {
                request = try SubscriptionRequest(
                    patterns: patterns, since: since, replay: replay,
                    initial: try call.parameters.optionalBool("initial"),
                    coalesce: try call.parameters.optionalBool("coalesce"))
            } catch {
                throw Self.error(error)
            }
        } catch {
            return stream.finish(throwing: error)
        }
        // No count per connection: Varlink answers a connection's calls in
        // order, so a connection streams one Subscribe at a time.
        let reader = SubscriptionReader(access: access, peer: connection.peer, patterns: request.patterns)
        Task { [service] in
            let subscription: Subscription
            do {
                subscription = try await service.subscribe(request)
            } catch SubscriptionError.hubClosed {
                // The daemon is stopping: end the stream as every live one
                // ends then, so a client resumes after the restart.
                return stream.finish()
            } catch {
                return stream.finish(throwing: Self.error(error))
            }
            SubscriptionPump(subscription: subscription, stream: stream, reader: reader).start()
        }
    }

    static func error(_ error: any Error) -> VarlinkCallError {
        switch error {
        case let error as SubscriptionError:
            switch error {
            case .invalidParameter(let name, _): return .invalidParameter(name)
            case .revisionCompacted(let since, let oldest): return VarlinkCallError(.revisionCompacted(since: since, oldest: oldest))
            case .sinceAhead: return .invalidParameter("since")
            case .hubClosed: return WireCoding.error(.storage(.closed))  // not reached: Subscribe ends the stream
            }
        case let error as ServiceError: return WireCoding.error(error)
        case let error as VarlinkCallError: return error
        default: return WireCoding.error(ServiceError.storage(.storage(code: -1, message: "\(error)")))
        }
    }
}

/// Moves a subscription's events to its reply stream on the connection's
/// event loop, as fast as the socket takes them and no faster: while the
/// connection is not writable it stops pulling, the hub's queue grows, and a
/// consumer that stays behind is ended by the hub with `SlowConsumer`.
final class SubscriptionPump: LoopMailboxWork, DirectConsumer {
    let subscription: Subscription
    let stream: VarlinkReplyStream
    let reader: SubscriptionReader
    /// The arrays a drain fills, kept from one drain to the next while
    /// small: a live subscriber's drains then allocate nothing.
    private let scratch: NIOLoopBoundBox<Scratch>

    private struct Scratch {
        var batch: [EncodedEvent] = []
        var frames: [[UInt8]] = []

        /// The most events whose arrays are kept: a burst or a backlog of
        /// 256 would otherwise hold 4 KiB per idle subscriber.
        static let keptCapacity = 16

        /// Empties both arrays, keeping their storage while it is small.
        mutating func clear() {
            if batch.capacity > Self.keptCapacity { batch = [] } else { batch.removeAll(keepingCapacity: true) }
            if frames.capacity > Self.keptCapacity { frames = [] } else { frames.removeAll(keepingCapacity: true) }
        }
    }

    init(subscription: Subscription, stream: VarlinkReplyStream, reader: SubscriptionReader) {
        self.subscription = subscription
        self.stream = stream
        self.reader = reader
        scratch = .makeBoxSendingValue(Scratch(), eventLoop: stream.eventLoop)
    }

    /// Wires the pump between the two ends. The handlers hold the pump
    /// strongly (nothing else does) until the stream terminates: then the
    /// stream drops its handlers and the subscription's is replaced here.
    func start() {
        stream.onTermination { [subscription] in
            subscription.onReady {}
            subscription.setDirectConsumer(nil)
            subscription.cancel()
        }
        subscription.onReady { self.schedule() }
        subscription.setDirectConsumer(self)
        stream.onWritabilityChange { writable in
            if writable { self.schedule() }
        }
        schedule()
    }

    /// Drains on the loop after its current work, with the other streams
    /// the same publish woke there (one task per loop, see `LoopMailbox`).
    private func schedule() {
        stream.mailbox.post(self)
    }

    func runOnLoop() { drain() }

    /// A publication on the connection's own loop (a tick's commit) hands
    /// its event straight over while the socket takes more.
    var takesEventsNow: Bool { stream.eventLoop.inEventLoop && stream.isWritable }

    /// An event handed over by the hub, on the loop: sent as a drain sends
    /// a batch of one, once the commit's replies are out.
    func take(_ event: EncodedEvent) {
        if endedForDeniedPattern() { return }
        if reader.filtersReads, !reader.mayRead(event.event.key) { return }
        stream.mailbox.sendAfterRound(stream, frame: event.bytes)
    }

    /// Ends the stream with `PermissionDenied` when the rules in force now
    /// deny one of its patterns (a reload re-filters every live
    /// subscription from its next event on); true when it did.
    private func endedForDeniedPattern() -> Bool {
        guard let denied = reader.deniedPattern() else { return false }
        stream.finish(throwing: VarlinkCallError(.permissionDenied(key: denied)))
        return true
    }

    /// Runs on the event loop only, so never twice at once.
    private func drain() {
        // Taken out while in use: the box is not accessed meanwhile, and the
        // arrays are uniquely referenced, so emptying them keeps their storage.
        var scratch = Scratch()
        swap(&scratch, &self.scratch.value)
        defer {
            scratch.clear()
            swap(&scratch, &self.scratch.value)
        }
        // An ended stream has cancelled its subscription (`start`), whose
        // next fill then says so.
        while stream.isWritable {
            let fill = subscription.next(limit: 256, into: &scratch.batch)
            switch fill {
            case .filled, .filledAll:
                // The rules in force now, for this whole batch.
                if endedForDeniedPattern() { return }
                let filters = reader.filtersReads
                scratch.frames.removeAll(keepingCapacity: true)
                for event in scratch.batch where !filters || reader.mayRead(event.event.key) {
                    scratch.frames.append(event.bytes)
                }
                if !scratch.frames.isEmpty { stream.send(frames: scratch.frames) }
                // Everything was taken and the wake-up armed.
                if case .filledAll = fill { return }
            case .pending:
                return
            case .ended(.slowConsumer(let revision)):
                return stream.finish(throwing: VarlinkCallError(.slowConsumer(revision: revision)))
            case .ended(.cancelled), .ended(.hubClosed):
                return stream.finish()
            }
        }
    }
}
