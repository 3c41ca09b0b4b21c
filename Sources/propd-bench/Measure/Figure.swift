import Histogram

/// What a figure must reach.
enum Target: Sendable {
    case atMost(Double)
    case atLeast(Double)

    func isMet(by value: Double) -> Bool {
        switch self {
        case .atMost(let bound): return value <= bound
        case .atLeast(let bound): return value >= bound
        }
    }

    var text: String {
        switch self {
        case .atMost(let bound): return "<= \(formatted(bound))"
        case .atLeast(let bound): return ">= \(formatted(bound))"
        }
    }
}

/// One measured number of one run.
struct Measurement: Sendable {
    var name: String
    var value: Double
    var unit: String
    var target: Target?

    init(_ name: String, _ value: Double, _ unit: String, target: Target? = nil) {
        self.name = name
        self.value = value
        self.unit = unit
        self.target = target
    }
}

/// Latencies in nanoseconds, reported in microseconds.
struct Latencies {
    var histogram = Histogram<UInt64>(
        lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)

    mutating func record(_ nanoseconds: UInt64) {
        _ = histogram.record(max(nanoseconds, 1))
    }

    var count: UInt64 { histogram.totalCount }

    func microseconds(atPercentile percentile: Double) -> Double {
        Double(histogram.valueAtPercentile(percentile)) / 1000
    }

    /// `name p50`, `name p99` (and more) in µs.
    func measurements(
        _ name: String, percentiles: [Double] = [50, 99], targets: [Double: Target] = [:]
    ) -> [Measurement] {
        percentiles.map { percentile in
            Measurement(
                "\(name) p\(formatted(percentile))", microseconds(atPercentile: percentile), "µs",
                target: targets[percentile])
        }
    }
}

/// A figure over several runs: its median, and the load average of each run.
struct Figure: Sendable {
    var name: String
    var unit: String
    var target: Target?
    var values: [Double]
    var loads: [Double]

    var median: Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    var verdict: String {
        guard let target else { return "" }
        return target.isMet(by: median) ? "met" : "MISSED"
    }
}

func formatted(_ value: Double) -> String {
    if value.isNaN { return "-" }
    if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
    if abs(value) >= 100 { return String(Int(value.rounded())) }
    let tenths = (value * 10).rounded() / 10
    return abs(value) >= 10 ? String(tenths) : String((value * 100).rounded() / 100)
}
