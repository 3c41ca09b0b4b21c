#if canImport(Glibc)
import Glibc
#endif

/// This host's name (`gethostname`), as a cluster node names itself: in the
/// timer holder's announcement, and as the owner of its binding files.
enum HostName {
    static var current: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
