import Dispatch
import Synchronization

/// An Execute's floor built from plain Sets: the same two commits and the
/// same crossings between processes, with no command machinery.
///
/// The caller sends a `oneway` Set of `ping` (the Execute); a relay thread
/// subscribed to `ping` answers each event with a Set of `pong` on a second
/// connection and reads its reply (the handler's invocation, then its
/// `Complete` and that reply); the round trip ends when the caller's
/// Subscribe on `pong` delivers the event (the Execute's reply). An Execute
/// through a raw handler does what this does plus the command's own work.
struct SetRelay {
    var socket: String
    var ping = "bench.relay.ping"
    var pong = "bench.relay.pong"

    /// Round trips with the relay running on a Dispatch thread.
    func roundTrips(calls: Int, warmup: Int = 500) throws(BenchError) -> Latencies {
        let relay = try Relay(socket: socket, from: ping, to: pong)
        defer { relay.stop() }
        let caller = try RawConnection(path: socket)
        let answer = try RawConnection.subscribers(1, to: pong, at: socket)[0]
        var poller = Poller([answer])
        var latencies = Latencies()
        let frames = (0..<(warmup + calls)).map { Calls.onewaySet(ping, $0) }
        for (round, frame) in frames.enumerated() {
            let start = now()
            try caller.send(frame)
            var events = 0
            while events == 0 {
                try poller.wait(timeout: 5000) { (_: Int) throws(BenchError) in events += try answer.receiveCount() }
            }
            if round >= warmup { latencies.record(now() - start) }
        }
        return latencies
    }
}

/// The relay's thread: each event of `from` is answered with a Set of `to`.
private final class Relay: Sendable {
    private let thread: LoopThread

    init(socket: String, from: String, to: String) throws(BenchError) {
        thread = LoopThread(RelayLoop(
            events: try RawConnection.subscribers(1, to: from, at: socket)[0],
            writer: try RawConnection(path: socket, nonBlocking: true), key: to))
    }

    func stop() { thread.stop() }
}

/// The relay's two connections, used by its one thread only.
///
/// `@unchecked Sendable`: handed once to the Dispatch thread that runs the
/// loop; nothing else touches them afterwards.
private final class RelayLoop: ThreadLoop, @unchecked Sendable {
    let events: RawConnection
    let writer: RawConnection
    let key: String

    init(events: RawConnection, writer: RawConnection, key: String) {
        self.events = events
        self.writer = writer
        self.key = key
    }

    func run(until stop: () -> Bool) {
        var poller = Poller([events, writer])
        var sent = 0
        while !stop() {
            do {
                try poller.wait(timeout: 50) { (index: Int) throws(BenchError) in
                    if index == 1 {
                        _ = try writer.receiveCount()
                        return
                    }
                    for _ in 0..<(try events.receiveCount()) {
                        sent += 1
                        try writer.send(Calls.set(key, sent))
                    }
                }
            } catch {
                printError("relay: \(error)")
                return
            }
        }
    }
}

extension Calls {
    /// A Set sent `oneway`: the daemon commits it and answers nothing.
    static func onewaySet(_ key: String, _ value: Int) -> [UInt8] {
        var out = Array(#"{"method":"io.propd.Set","parameters":{"values":{""#.utf8)
        out.append(contentsOf: key.utf8)
        out.append(contentsOf: #"":"#.utf8)
        out.append(contentsOf: String(value).utf8)
        out.append(contentsOf: #"}},"oneway":true}"#.utf8)
        out.append(0)
        return out
    }
}
