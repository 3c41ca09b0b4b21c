import CSQLite3

#if canImport(Glibc)
import Glibc
#endif

// `../Floor/durable_set_server.c` in Swift without SwiftNIO: one thread,
// epoll(7) called directly, the Sets of an epoll round in one SQLite WAL
// transaction (an upsert and a history row each, the C floor's own
// tables), then the round's replies, then its events to every subscriber,
// one write each. Beside the C floor it is what Swift costs; beside
// `nio-floor-server`, what SwiftNIO's event loop and pipeline add.
//
//   .build/release/epoll-floor-server /tmp/f/s.sock /tmp/f/db NORMAL
let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    print(FloorError.usage)
    exit(2)
}
signal(SIGPIPE, SIG_IGN)
unlink(arguments[1])
unlink(arguments[2])
do {
    try EpollFloor(socket: arguments[1], database: arguments[2], synchronous: arguments[3]).run()
} catch {
    print(error)
    exit(1)
}
