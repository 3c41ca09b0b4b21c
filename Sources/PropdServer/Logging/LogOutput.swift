#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where finished log lines go. Each call gets one whole line, ending in `\n`.
public protocol LogOutput: Sendable {
    func write(line: String)
}

/// The process's standard error, one `write(2)` per line so lines from several
/// threads never interleave mid-line (journald reads them from a stream).
public struct StandardErrorOutput: LogOutput {
    public init() {}

    public func write(line: String) {
        var bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { raw in
                writeStandardError(raw.baseAddress.map { $0 + offset }, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return  // nowhere left to report it
            }
            offset += written
        }
    }
}

/// At file scope, where `write` is libc's and not ``LogOutput/write(line:)``.
private func writeStandardError(_ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(STDERR_FILENO, bytes, count)
}
