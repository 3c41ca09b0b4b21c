/// Memory per idle subscription: propd's VmRSS before and after `count`
/// connections each open one Subscribe (initial: false) and wait for its
/// `synced`, divided by `count`. Counts the connection as well as the
/// subscription: a Varlink stream owns its connection while it lasts.
struct IdleMemory {
    var socket: String
    var pid: Int32
    var count: Int
    /// Number of the first subscription (runs after the first add to earlier ones).
    var first = 0

    /// KiB per subscription, and the connections, which the caller keeps open.
    func run() throws(BenchError) -> (Double, [RawConnection]) {
        if first == 0 {
            // Warm the daemon's allocator and pools with one subscription first.
            let warm = try RawConnection(path: socket)
            try warm.subscribe("bench.idle.warm")
        }
        let before = try residentKiB(pid: pid)
        var links: [RawConnection] = []
        for index in first..<(first + count) {
            let link = try RawConnection(path: socket)
            try link.subscribe("bench.idle.k\(index)")
            links.append(link)
        }
        let after = try residentKiB(pid: pid)
        return (Double(after - before) / Double(count), links)
    }
}
