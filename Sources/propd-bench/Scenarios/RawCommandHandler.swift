import Dispatch
import Glibc
import Synchronization

/// A command handler with no client library: one Dispatch thread reads
/// invocations off a `Serve` connection and answers each at once with
/// `Complete(id, result: 1)` on a second connection. Beside the
/// `PropdClient.serve` handlers it splits an Execute's time between the
/// daemon and the client library.
final class RawCommandHandler: Sendable {
    private let thread: LoopThread

    /// Serves `commands` until ``stop()``.
    init(socket: String, commands: [String]) throws(BenchError) {
        let stream = try RawConnection(path: socket)
        let answers = try RawConnection(path: socket, nonBlocking: true)
        var serve = Array(#"{"method":"io.propd.Serve","parameters":{"commands":["#.utf8)
        serve.append(contentsOf: commands.map { "\"\($0)\"" }.joined(separator: ",").utf8)
        serve.append(contentsOf: #"]},"more":true}"#.utf8)
        try stream.send(serve + [0])
        stream.makeNonBlocking()
        thread = LoopThread(HandlerLoop(stream: stream, answers: answers))
    }

    func stop() { thread.stop() }
}

/// The handler's two connections, used by its one thread only.
///
/// `@unchecked Sendable`: handed once to the Dispatch thread that runs the
/// loop; nothing else touches them afterwards.
private final class HandlerLoop: ThreadLoop, @unchecked Sendable {
    let stream: RawConnection
    let answers: RawConnection

    init(stream: RawConnection, answers: RawConnection) {
        self.stream = stream
        self.answers = answers
    }

    func run(until stop: () -> Bool) {
        var poller = Poller([stream, answers])
        while !stop() {
            do {
                try poller.wait(timeout: 50) { (index: Int) throws(BenchError) in
                    if index == 1 {
                        _ = try answers.receiveCount()
                        return
                    }
                    var ids: [[UInt8]] = []
                    try stream.receive { frame in if let id = frame.invocationID { ids.append(id) } }
                    for id in ids {
                        var complete = Array(#"{"method":"io.propd.Complete","parameters":{"id":""#.utf8)
                        complete.append(contentsOf: id)
                        complete.append(contentsOf: #"","result":1}}"#.utf8)
                        complete.append(0)
                        try answers.send(complete)
                    }
                }
            } catch {
                printError("raw handler: \(error)")
                return
            }
        }
    }
}

extension UnsafeRawBufferPointer {
    /// The bytes of `"id":"…"` in an invocation frame.
    var invocationID: [UInt8]? {
        let marker = Array(#""id":""#.utf8)
        guard count > marker.count, let base = baseAddress else { return nil }
        var offset = 0
        while offset + marker.count < count {
            guard let found = memchr(base + offset, Int32(marker[0]), count - offset) else { return nil }
            let start = base.distance(to: UnsafeRawPointer(found))
            if start + marker.count <= count, memcmp(found, marker, marker.count) == 0 {
                var end = start + marker.count
                while end < count, self[end] != UInt8(ascii: "\"") { end += 1 }
                return Array(self[(start + marker.count)..<end])
            }
            offset = start + 1
        }
        return nil
    }
}
