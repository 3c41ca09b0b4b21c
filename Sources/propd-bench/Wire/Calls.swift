/// Prebuilt Varlink call frames (JSON and the terminating NUL).
enum Calls {
    static func set(_ key: String, _ value: Int) -> [UInt8] {
        var out = Array(#"{"method":"io.propd.Set","parameters":{"values":{""#.utf8)
        out.append(contentsOf: key.utf8)
        out.append(contentsOf: #"":"#.utf8)
        out.append(contentsOf: String(value).utf8)
        out.append(contentsOf: "}}}".utf8)
        out.append(0)
        return out
    }

    /// `count` Sets of `key` with consecutive values from `first`, back to back.
    static func sets(_ key: String, from first: Int, count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count * (64 + key.utf8.count))
        for value in first..<(first + count) { out.append(contentsOf: set(key, value)) }
        return out
    }

    /// `org.varlink.service.GetInfo`: answered on the connection's event loop,
    /// so its round trip is the daemon's framing-and-dispatch floor.
    static let getInfo = Array(#"{"method":"org.varlink.service.GetInfo","parameters":{}}"#.utf8) + [0]

    static func get(_ key: String) -> [UInt8] {
        var out = Array(#"{"method":"io.propd.Get","parameters":{"keys":[""#.utf8)
        out.append(contentsOf: key.utf8)
        out.append(contentsOf: #""]}}"#.utf8)
        out.append(0)
        return out
    }

    static func subscribe(_ pattern: String, initial: Bool = false) -> [UInt8] {
        var out = Array(#"{"method":"io.propd.Subscribe","parameters":{"patterns":[""#.utf8)
        out.append(contentsOf: pattern.utf8)
        out.append(contentsOf: #""],"initial":\#(initial)},"more":true}"#.utf8)
        out.append(0)
        return out
    }

    static func bind(_ key: String, _ expression: String) -> [UInt8] {
        var out = Array(#"{"method":"io.propd.Bind","parameters":{"key":""#.utf8)
        out.append(contentsOf: key.utf8)
        out.append(contentsOf: #"","expression":""#.utf8)
        out.append(contentsOf: expression.utf8)
        out.append(contentsOf: #""}}"#.utf8)
        out.append(0)
        return out
    }
}

extension RawConnection {
    /// Sends one call and waits for its reply; throws on an error reply.
    func roundTrip(_ call: [UInt8]) throws(BenchError) {
        try send(call)
        let reply = try receiveFrame()
        if reply.withUnsafeBytes({ $0.isError }) {
            throw BenchError("propd answered an error: \(String(decoding: reply, as: UTF8.self))")
        }
    }

    /// Reads what has arrived of Set replies; true when at least one came.
    /// - Throws: when one of them is an error.
    func receiveSetReplies() throws(BenchError) -> Bool {
        var failed = false
        let replies = try receive { if $0.isError { failed = true } }
        if failed { throw BenchError("Set failed") }
        return replies > 0
    }

    /// Sends Subscribe and waits for its `synced` event.
    func subscribe(_ pattern: String) throws(BenchError) {
        try send(Calls.subscribe(pattern))
        var synced = false
        while !synced {
            var failure: String?
            try receive { frame in
                if frame.isError { failure = String(decoding: frame, as: UTF8.self) }
                if frame.contains(#""kind":"synced""#) { synced = true }
            }
            if let failure { throw BenchError("Subscribe failed: \(failure)") }
        }
    }
}
