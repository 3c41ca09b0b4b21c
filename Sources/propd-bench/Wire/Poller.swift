import Glibc

/// poll(2) over a set of connections (Glibc has no epoll for Swift; at a
/// thousand descriptors poll's scan is still small next to the reads).
struct Poller {
    private var descriptors: [pollfd]

    init(_ connections: [RawConnection], events: Int16 = Int16(POLLIN)) {
        descriptors = connections.map { pollfd(fd: $0.fd, events: events, revents: 0) }
    }

    /// Waits up to `timeout` ms and calls `ready` with the index of each readable connection.
    mutating func wait(timeout: Int32 = 1000, _ ready: (Int) throws(BenchError) -> Void) throws(BenchError) {
        let count = descriptors.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeout) }
        if count < 0 {
            if errno == EINTR { return }
            throw .system("poll")
        }
        guard count > 0 else { return }
        for index in descriptors.indices where descriptors[index].revents != 0 {
            descriptors[index].revents = 0
            try ready(index)
        }
    }
}
