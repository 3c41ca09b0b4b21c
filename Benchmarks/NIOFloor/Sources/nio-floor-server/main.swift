import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

// One event loop, as the C floor has one thread: every connection and the
// SQLite connection on it. KEEP: propd's `properties` and a history keeping
// KEEP rows per key; BULK: trimmed every BULK Sets in one range delete
// (`SetBatch`).
let arguments = CommandLine.arguments
let counts = arguments.dropFirst(4).map { Int($0) }
guard (4...6).contains(arguments.count), counts.allSatisfy({ ($0 ?? 0) > 0 }) else {
    print(FloorError.usage)
    exit(2)
}
let keep = counts.first ?? nil
let bulkTrim = counts.dropFirst().first ?? nil
unlink(arguments[1])
unlink(arguments[2])
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let loop = group.next()
let batch = try loop.submit { NIOLoopBound(try SetBatch(path: arguments[2], synchronous: arguments[3], keep: keep, bulkTrim: bulkTrim, loop: loop), eventLoop: loop) }.wait()
let server = try ServerBootstrap(group: group)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(FloorConnection(batch: batch)) }
    }
    .bind(unixDomainSocketPath: arguments[1])
    .wait()
try server.closeFuture.wait()
