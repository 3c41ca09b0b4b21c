/// Sequential Set round trips on one connection: send, wait for the reply, repeat.
struct Sequential {
    var socket: String
    var calls: Int
    var warmup: Int = 2000

    func run() throws(BenchError) -> Latencies {
        let link = try RawConnection(path: socket)
        for value in 0..<warmup { try link.roundTrip(Calls.set("bench.seq", value)) }
        var latencies = Latencies()
        let frames = (0..<calls).map { Calls.set("bench.seq", warmup + $0) }
        for frame in frames {
            let start = now()
            try link.roundTrip(frame)
            latencies.record(now() - start)
        }
        return latencies
    }
}
