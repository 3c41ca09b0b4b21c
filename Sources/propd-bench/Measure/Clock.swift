import Glibc

/// CLOCK_MONOTONIC in nanoseconds.
@inline(__always)
func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// The 1-minute load average, from /proc/loadavg.
func loadAverage() -> Double {
    guard let file = fopen("/proc/loadavg", "r") else { return -1 }
    defer { fclose(file) }
    var one = 0.0
    return fscanf_double(file, &one) ? one : -1
}

private func fscanf_double(_ file: UnsafeMutablePointer<FILE>, _ value: inout Double) -> Bool {
    var line = [CChar](repeating: 0, count: 128)
    guard fgets(&line, Int32(line.count), file) != nil else { return false }
    let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let first = text.split(separator: " ").first, let parsed = Double(first) else { return false }
    value = parsed
    return true
}

/// VmRSS of a process in KiB, from /proc/PID/status.
func residentKiB(pid: Int32) throws(BenchError) -> Int {
    guard let file = fopen("/proc/\(pid)/status", "r") else { throw .system("/proc/\(pid)/status") }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("VmRSS:") {
            let digits = text.dropFirst(6).filter(\.isNumber)
            if let kib = Int(digits) { return kib }
        }
    }
    throw BenchError("no VmRSS in /proc/\(pid)/status")
}
