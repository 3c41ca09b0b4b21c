/// Sequential round trips on one connection: send, wait for the reply, repeat.
struct Sequential {
    var socket: String
    var calls: Int
    var warmup: Int = 2000
    /// propd's process, whose CPU per call is measured over the measured calls.
    var pid: Int32? = nil

    /// What each call is.
    enum Call {
        /// `Set` of one key to the call's number.
        case set
        /// `Get` of that key (a read: no writer, no commit).
        case get
        /// `org.varlink.service.GetInfo` (no service at all: framing and dispatch).
        case getInfo

        func frame(_ number: Int) -> [UInt8] {
            switch self {
            case .set: return Calls.set("bench.seq", number)
            case .get: return Calls.get("bench.seq")
            case .getInfo: return Calls.getInfo
            }
        }
    }

    /// The measured calls' latencies, and propd's CPU per call when `pid`
    /// is given.
    struct Result {
        var latencies: Latencies
        var daemonCPUPerCall: CPUPerUnit?
    }

    func run(_ call: Call = .set) throws(BenchError) -> Result {
        let link = try RawConnection(path: socket)
        try link.roundTrip(Calls.set("bench.seq", 0))
        for number in 0..<warmup { try link.roundTrip(call.frame(number)) }
        var latencies = Latencies()
        let frames = (0..<calls).map { call.frame(warmup + $0) }
        var cpu = CPUMeter(pid: pid)
        cpu.start()
        for frame in frames {
            let start = now()
            try link.roundTrip(frame)
            latencies.record(now() - start)
        }
        return Result(latencies: latencies, daemonCPUPerCall: cpu.split(per: frames.count))
    }
}
