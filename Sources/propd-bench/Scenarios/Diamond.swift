/// A change through a diamond of bindings to a subscriber: `b = a + 1`,
/// `c = a * 2`, `d = combineLatest(b, c)`; the subscriber watches `d`. Each
/// sample is the time from sending `Set a` to reading the event of `d`.
struct Diamond {
    var socket: String
    var sets: Int
    var warmup = 50
    var prefix = "bench.diamond"

    func run() throws(BenchError) -> Latencies {
        let writer = try RawConnection(path: socket)
        let a = "\(prefix).a", b = "\(prefix).b", c = "\(prefix).c", d = "\(prefix).d"
        try writer.roundTrip(Calls.set(a, 0))
        try writer.roundTrip(Calls.bind(b, "\(a).map { $0 + 1 }"))
        try writer.roundTrip(Calls.bind(c, "\(a).map { $0 * 2 }"))
        try writer.roundTrip(Calls.bind(d, "combineLatest(\(b), \(c)).map { x, y in x + y }"))
        let listener = try RawConnection(path: socket)
        try listener.subscribe(d)
        listener.makeNonBlocking()
        writer.makeNonBlocking()
        var poller = Poller([writer, listener])
        var latencies = Latencies()
        for round in 1...(warmup + sets) {
            let start = now()
            try writer.send(Calls.set(a, round))
            var replied = false
            var events = 0
            while !replied || events == 0 {
                try poller.wait(timeout: 5000) { (index: Int) throws(BenchError) in
                    if index == 0 {
                        if try writer.receiveSetReplies() { replied = true }
                        return
                    }
                    let count = try listener.receiveCount()
                    if count > 0, events == 0, round > warmup { latencies.record(now() - start) }
                    events += count
                }
            }
            if events != 1 { throw BenchError("d changed \(events) times for one Set of a (a glitch?)") }
        }
        return latencies
    }
}
