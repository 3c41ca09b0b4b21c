/// Events per second delivered in total to `subscribers` subscribers of one
/// key while a writer pipelines Sets of it as fast as the subscribers keep up.
///
/// The writer keeps `depth` Sets in flight but never runs more than `lead`
/// Sets ahead of the slowest subscriber, so no subscriber is ended as a slow
/// consumer: what is measured is sustained delivery, not queueing.
struct FanOut {
    var socket: String
    var subscribers: Int
    var seconds: Double
    var depth = 128
    var lead = 2000
    var warmupSeconds = 0.5
    var key = "bench.fanout"
    var pid: Int32?

    struct Result {
        var eventsPerSecond: Double
        var setsPerSecond: Double
        /// propd's CPU per delivered event, when its pid is known.
        var daemonMicrosecondsPerEvent: Double?
    }

    func run() throws(BenchError) -> Result {
        let writer = try RawConnection(path: socket)
        let listeners = try RawConnection.subscribers(subscribers, to: key, at: socket)
        writer.makeNonBlocking()
        var poller = Poller([writer] + listeners)
        var received = [Int](repeating: 0, count: subscribers)
        var sent = 0
        var replied = 0
        var delivered = 0
        var slowest = 0
        var errors = 0

        func feed() throws(BenchError) {
            let room = min(depth - (sent - replied), slowest + lead - sent)
            guard room > 0 else { return }
            try writer.send(Calls.sets(key, from: sent, count: room))
            sent += room
        }

        let start = now()
        let warmupEnd = start + UInt64(warmupSeconds * 1e9)
        let end = warmupEnd + UInt64(seconds * 1e9)
        var measuring = false
        var measureStart = warmupEnd
        var repliedAtStart = 0
        var cpu = CPUMeter(pid: pid)
        try feed()
        while true {
            let time = now()
            if !measuring, time >= warmupEnd {
                measuring = true
                measureStart = time
                delivered = 0
                repliedAtStart = replied
                cpu.start()
            }
            if time >= end { break }
            var slowestMoved = false
            try poller.wait(timeout: 100) { (index: Int) throws(BenchError) in
                if index == 0 {
                    replied += try writer.receive { if $0.isError { errors += 1 } }
                    return
                }
                let events = try listeners[index - 1].receive { frame in
                    if frame.isError { errors += 1 }
                }
                if events > 0 {
                    if received[index - 1] == slowest { slowestMoved = true }
                    received[index - 1] += events
                    delivered += events
                }
            }
            if errors > 0 { throw BenchError("\(errors) error replies (a SlowConsumer?)") }
            if slowestMoved { slowest = received.min() ?? sent }
            try feed()
        }
        let elapsed = Double(now() - measureStart) / 1e9
        return Result(
            eventsPerSecond: Double(delivered) / elapsed, setsPerSecond: Double(replied - repliedAtStart) / elapsed,
            daemonMicrosecondsPerEvent: cpu.microseconds(per: delivered))
    }
}
