import Foundation
import PropdCore
import PropdStore

/// A fresh directory under the system temp dir, removed when released.
final class TemporaryDirectory: Sendable {
    let path: String

    init(_ name: String = #function) throws {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        path = NSTemporaryDirectory() + "propd-store-\(safe)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    var databasePath: String { path + "/propd.db" }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

func key(_ text: String) -> Key {
    guard let key = try? Key(text) else { fatalError("test key \(text) is invalid") }
    return key
}

func openStore(
    _ dir: TemporaryDirectory, durability: StoreConfiguration.Durability = .normal, historyPerKey: Int = 100,
    maximumDatabaseBytes: Int? = nil
) throws(StoreError) -> PropertyStore {
    try PropertyStore(
        path: dir.databasePath,
        configuration: StoreConfiguration(
            durability: durability, historyPerKey: historyPerKey, maximumDatabaseBytes: maximumDatabaseBytes))
}

/// Runs `body` and returns the StoreError it threw (nil if none or another error).
func storeError(_ body: () async throws -> Void) async -> StoreError? {
    do {
        try await body()
        return nil
    } catch let error as StoreError {
        return error
    } catch {
        return nil
    }
}

func sha256OfFile(_ path: String) -> Data? {
    FileManager.default.contents(atPath: path)
}
