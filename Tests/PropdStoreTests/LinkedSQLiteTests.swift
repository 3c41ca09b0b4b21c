import Foundation
import Testing

/// The SQLite the store links is the one README ("Storage") describes: built
/// with its lookaside allocator and without memory statistics, which the
/// writer's cost per Set depends on (BENCHMARKS.md).
@Suite struct LinkedSQLiteTests {
    @Test func theStoresSQLiteHasLookasideAndNoMemoryStatistics() throws {
        let options = try InspectedDatabase(":memory:").strings("PRAGMA compile_options")
        #expect(options.contains("DEFAULT_MEMSTATUS=0"), "\(options)")
        #expect(!options.contains("OMIT_LOOKASIDE"), "\(options)")
        let version = try InspectedDatabase(":memory:").strings("SELECT sqlite_version()")
        #expect(version.first.map { $0.compare("3.54", options: .numeric) != .orderedAscending } == true, "\(version)")
    }
}
