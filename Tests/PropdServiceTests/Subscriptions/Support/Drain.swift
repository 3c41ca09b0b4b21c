import Dispatch
import Foundation
import PropdCore

@testable import PropdService

/// What a consumer received.
struct Received {
    var events: [Event] = []
    var end: SubscriptionEnd?
    var timedOut = false

    var synced: Event? { events.first { $0.kind == .synced } }
    /// The events after `synced`.
    var live: [Event] {
        guard let i = events.firstIndex(where: { $0.kind == .synced }) else { return [] }
        return Array(events[(i + 1)...])
    }
    /// The events before `synced`.
    var backlog: [Event] {
        guard let i = events.firstIndex(where: { $0.kind == .synced }) else { return events }
        return Array(events[..<i])
    }
}

/// Pulls events from `subscription` until `done` holds for everything received
/// so far and nothing more is pending, the subscription ends, or `timeout`
/// passes while waiting (then `timedOut` is set). Waits on the readiness
/// handler, never by sleeping.
func drain(
    _ subscription: Subscription, limit: Int = 64, timeout: Duration = .seconds(20),
    into received: inout Received, until done: (Received) -> Bool
) {
    let ready = DispatchSemaphore(value: 0)
    subscription.onReady { ready.signal() }
    while true {
        switch subscription.next(limit: limit) {
        case .events(let batch):
            // Touch the bytes as a transport would (and to exercise shared encoding).
            for encoded in batch {
                _ = encoded.bytes.count
                received.events.append(encoded.event)
            }
        case .pending:
            if done(received) { return }
            let seconds = Double(timeout.components.seconds)
            if ready.wait(timeout: .now() + seconds) == .timedOut {
                received.timedOut = true
                return
            }
        case .ended(let reason):
            received.end = reason
            return
        }
    }
}

func drain(
    _ subscription: Subscription, limit: Int = 64, timeout: Duration = .seconds(20),
    until done: (Received) -> Bool
) -> Received {
    var received = Received()
    drain(subscription, limit: limit, timeout: timeout, into: &received, until: done)
    return received
}

/// Drains until an event at `revision` arrived (and all of its revision, since
/// a revision is queued at once).
func drain(_ subscription: Subscription, through revision: Revision) -> Received {
    drain(subscription) { r in r.live.contains { $0.revision >= revision } }
}

/// Runs `body` on `count` new threads and waits for all of them.
/// Awaited without blocking: the bodies may need the cooperative pool (a
/// `Task` they wait for), which a test blocking one of its two threads here
/// could starve while other tests hold the other.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        // Real threads: the bodies block (on semaphores, on locks), which a
        // bounded pool could starve.
        Thread.detachNewThread {
            body(i)
            group.leave()
        }
    }
    await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
        group.notify(queue: .global()) { finished.resume() }
    }
}
