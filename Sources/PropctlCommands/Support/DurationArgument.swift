/// A duration on the command line: a whole number with its unit, `ms`, `s`,
/// `m` or `h` (`500ms`, `10s`, `2m`, `1h`).
enum DurationArgument {
    /// The duration in milliseconds, or nil when `text` is not one.
    static func milliseconds(_ text: String) -> Int64? {
        let units: [(suffix: String, factor: Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count)
            guard !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber),
                let value = Int64(number), value <= Int64.max / factor
            else { return nil }
            return value * factor
        }
        return nil
    }
}
