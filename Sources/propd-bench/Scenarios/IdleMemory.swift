/// Memory per idle subscription: propd's VmRSS before and after `count`
/// connections each open one Subscribe (initial: false) and wait for its
/// `synced`, divided by `count`. Counts the connection as well as the
/// subscription: a Varlink stream owns its connection while it lasts.
struct IdleMemory {
    var socket: String
    var pid: Int32
    var count: Int

    func run() throws(BenchError) -> Double {
        // Warm the daemon's allocator and pools with one subscription first.
        do {
            let first = try RawConnection(path: socket)
            try first.subscribe("bench.idle.warm")
        }
        let before = try residentKiB(pid: pid)
        var links: [RawConnection] = []
        for index in 0..<count {
            let link = try RawConnection(path: socket)
            try link.subscribe("bench.idle.k\(index % 1000)")
            links.append(link)
        }
        let after = try residentKiB(pid: pid)
        withExtendedLifetime(links) {}
        return Double(after - before) / Double(count)
    }
}
