import Glibc

/// Runs a scenario several times and reduces each measured figure to its median.
struct Runner {
    var runs: Int
    var quiet: Bool

    func measure(_ scenario: String, _ body: () throws(BenchError) -> [Measurement]) throws(BenchError) -> [Figure] {
        var figures: [Figure] = []
        for run in 1...runs {
            let load = loadAverage()
            let measurements = try body()
            if !quiet {
                let text = measurements.map { "\($0.name)=\(formatted($0.value))\($0.unit)" }.joined(separator: " ")
                printError("[\(scenario) run \(run)/\(runs), load \(formatted(load))] \(text)")
            }
            for measurement in measurements {
                if let index = figures.firstIndex(where: { $0.name == measurement.name }) {
                    figures[index].values.append(measurement.value)
                    figures[index].loads.append(load)
                } else {
                    figures.append(
                        Figure(
                            name: measurement.name, unit: measurement.unit, target: measurement.target,
                            values: [measurement.value], loads: [load]))
                }
            }
        }
        return figures
    }
}

/// A line on standard error (unbuffered, so progress shows while a scenario runs).
func printError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
