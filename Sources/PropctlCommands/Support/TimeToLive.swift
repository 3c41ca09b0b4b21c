import ArgumentParser

/// `--ttl 30s`: a duration in `ms`, `s`, `m` or `h` (a bare number is
/// milliseconds, as on the wire), sent as `Set`'s `ttl` in milliseconds.
struct TimeToLive: ExpressibleByArgument, Equatable {
    /// The largest `ttl` the daemon accepts: 2^31 ms (about 24.8 days).
    static let maximum: Int64 = 1 << 31

    var milliseconds: Int64

    init?(argument: String) {
        let units: [(suffix: String, factor: Double)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        let unit = units.first { argument.hasSuffix($0.suffix) && Double(argument.dropLast($0.suffix.count)) != nil }
        let number = unit.map { String(argument.dropLast($0.suffix.count)) } ?? argument
        guard let amount = Double(number), amount.isFinite else { return nil }
        let milliseconds = (amount * (unit?.factor ?? 1)).rounded()
        guard milliseconds >= 1, milliseconds <= Double(Self.maximum) else { return nil }
        self.milliseconds = Int64(milliseconds)
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
