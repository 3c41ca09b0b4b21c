/// Set-to-event latency: one writer, `subscribers` connections each with one
/// Subscribe (initial: false) on the written key. Each Set is sent alone; the
/// next one leaves only when every subscriber has its event and the writer
/// its reply, so each sample is the time from sending the Set to that
/// subscriber reading the event (one thread reads them all, in turn, as a
/// real client on this 2-core machine would share a core).
struct SetToEvent {
    var socket: String
    var subscribers: Int
    var sets: Int
    var warmup: Int = 50
    var key = "bench.latency"

    struct Result {
        /// Every subscriber's sample.
        var all = Latencies()
        /// Per Set, the first subscriber to get the event: the daemon's part,
        /// before the client's reading of the others adds up.
        var first = Latencies()
    }

    func run() throws(BenchError) -> Result {
        let writer = try RawConnection(path: socket, nonBlocking: false)
        let listeners = try RawConnection.subscribers(subscribers, to: key, at: socket)
        writer.makeNonBlocking()
        var poller = Poller([writer] + listeners)
        var result = Result()
        var received = [Int](repeating: 0, count: subscribers)
        for round in 0..<(warmup + sets) {
            let frame = Calls.set(key, round)
            let start = now()
            try writer.send(frame)
            var replied = false
            var pending = subscribers
            while !replied || pending > 0 {
                try poller.wait(timeout: 5000) { (index: Int) throws(BenchError) in
                    if index == 0 {
                        if try writer.receiveSetReplies() { replied = true }
                        return
                    }
                    let events = try listeners[index - 1].receiveCount()
                    guard events > 0 else { return }
                    let arrival = now()
                    received[index - 1] += events
                    if round >= warmup {
                        result.all.record(arrival - start)
                        if pending == subscribers { result.first.record(arrival - start) }
                    }
                    pending -= events
                }
            }
            if pending < 0 { throw BenchError("more events than Sets") }
        }
        return result
    }
}
