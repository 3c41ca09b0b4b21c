#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole file as UTF-8 text (propctl does not link Foundation: it
/// starts faster without it). `-` reads standard input.
enum TextFile {
    static func read(_ path: String) throws(PropctlFailure) -> String {
        let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw .usage("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes.append(contentsOf: chunk[0..<n])
            } else if n == 0 {
                break
            } else if errno != EINTR {
                throw .usage("cannot read \(path): \(String(cString: strerror(errno)))")
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .usage("\(path) is not UTF-8 text")
        }
        return text
    }
}
