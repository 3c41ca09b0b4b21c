import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

// One event loop, as the C floor has one thread: every connection and the
// SQLite connection on it. KEEP: propd's `properties` and a history keeping
// KEEP rows per key (`SetBatch`).
let arguments = CommandLine.arguments
guard arguments.count == 4 || (arguments.count == 5 && Int(arguments[4]).map { $0 > 0 } == true) else {
    print(FloorError.usage)
    exit(2)
}
let keep = arguments.count == 5 ? Int(arguments[4]) : nil
unlink(arguments[1])
unlink(arguments[2])
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let loop = group.next()
let batch = try loop.submit { NIOLoopBound(try SetBatch(path: arguments[2], synchronous: arguments[3], keep: keep, loop: loop), eventLoop: loop) }.wait()
let server = try ServerBootstrap(group: group)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(FloorConnection(batch: batch)) }
    }
    .bind(unixDomainSocketPath: arguments[1])
    .wait()
try server.closeFuture.wait()
