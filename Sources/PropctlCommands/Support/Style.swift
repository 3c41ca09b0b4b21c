#if canImport(Glibc)
import Glibc
#endif

/// Terminal colours: only when stdout is a terminal, `NO_COLOR` is unset or
/// empty (https://no-color.org) and `TERM` is not `dumb`.
struct Style: Sendable {
    var enabled: Bool

    static let standardOutput = Style(enabled: colourAllowed(fd: STDOUT_FILENO))
    static let standardError = Style(enabled: colourAllowed(fd: STDERR_FILENO))

    static func colourAllowed(fd: Int32) -> Bool {
        guard StandardStreams.isTerminal(fd) else { return false }
        if let noColor = getenv("NO_COLOR"), noColor.pointee != 0 { return false }
        if let term = getenv("TERM"), String(cString: term) == "dumb" { return false }
        return true
    }

    func bold(_ s: String) -> String { paint(s, "1") }
    func dim(_ s: String) -> String { paint(s, "2") }
    func red(_ s: String) -> String { paint(s, "31") }
    func green(_ s: String) -> String { paint(s, "32") }
    func yellow(_ s: String) -> String { paint(s, "33") }
    func blue(_ s: String) -> String { paint(s, "34") }
    func cyan(_ s: String) -> String { paint(s, "36") }

    private func paint(_ s: String, _ code: String) -> String {
        enabled && !s.isEmpty ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s
    }
}
