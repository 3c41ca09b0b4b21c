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

/// The CPU a process has used, all threads, in seconds.
struct ProcessCPU {
    /// In user space.
    var user: Double
    /// In the kernel, on its behalf.
    var system: Double

    /// From /proc/PID/stat; nil without a pid or when it cannot be read.
    init?(pid: Int32?) {
        guard let pid, let file = fopen("/proc/\(pid)/stat", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 1024)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Fields after the command name (which may hold spaces) start at state, field 3.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        self.user = user / ticks
        self.system = system / ticks
    }
}

/// The CPU a process spends between `start()` and a reading of it.
struct CPUMeter {
    let pid: Int32?
    private var startCPU: ProcessCPU?

    init(pid: Int32?) { self.pid = pid }

    mutating func start() { startCPU = ProcessCPU(pid: pid) }

    /// CPU µs per unit of work since `start()`.
    func microseconds(per units: Int) -> Double? {
        split(per: units)?.total
    }

    /// CPU µs per unit of work since `start()`, in user space and in the kernel.
    func split(per units: Int) -> CPUPerUnit? {
        guard let startCPU, let end = ProcessCPU(pid: pid), units > 0 else { return nil }
        let scale = 1e6 / Double(units)
        return CPUPerUnit(user: (end.user - startCPU.user) * scale, system: (end.system - startCPU.system) * scale)
    }
}

/// A process's CPU per unit of work, in µs.
struct CPUPerUnit {
    /// In user space.
    var user: Double
    /// In the kernel, on its behalf.
    var system: Double

    var total: Double { user + system }
}
