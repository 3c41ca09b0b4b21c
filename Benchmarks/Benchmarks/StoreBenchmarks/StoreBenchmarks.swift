import Benchmark

// Filled in by this module's issue.
let benchmarks: @Sendable () -> Void = {}
