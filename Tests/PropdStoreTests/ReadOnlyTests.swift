import Foundation
import PropdCore
import PropdStore
import Testing

/// A database on a read-only mount: refused by name, untouched. Tested with a
/// real tmpfs remounted `ro`, which stops root too (chmod would not).
@Suite struct ReadOnlyTests {
    @Test(.enabled(if: MountedFilesystem.isAvailable, "needs root to mount a tmpfs and remount it read-only"))
    func aDatabaseOnAReadOnlyMountIsRefusedUntouched() async throws {
        guard let mount = try MountedFilesystem(sizeKiB: 4096) else {
            Issue.record("cannot mount a tmpfs here (not root?): read-only test not run")
            return
        }
        let path = mount.path + "/propd.db"
        do {
            let store = try PropertyStore(path: path, configuration: StoreConfiguration(durability: .normal))
            try await store.write(WriteRequest(set: [key("a"): 1]))
            // Stopped as the daemon stops it: the checkpoint runs on the writer
            // after its last drain, so nothing but `store` holds the file after it.
            store.close()
            try store.checkpoint()
        }
        let before = FileManager.default.contents(atPath: path)
        try #require(mount.remount(readOnly: true))
        let error = #expect(throws: StoreError.self) { try PropertyStore(path: path) }
        if case .readOnly(let p, _) = error { #expect(p == path) } else { Issue.record("got \(String(describing: error))") }
        #expect(FileManager.default.contents(atPath: path) == before)
        try #require(mount.remount(readOnly: false))
        #expect(try PropertyStore(path: path).get([key("a")]).properties.first??.value == 1)
    }

    /// Without root, permissions are enough to make the file read-only.
    @Test(.enabled(if: getuid() != 0, "root ignores permissions; the mount test covers root"))
    func aReadOnlyDirectoryWithoutRoot() async throws {
        let dir = try TemporaryDirectory()
        do {
            let store = try openStore(dir)
            try await store.write(WriteRequest(set: [key("a"): 1]))
        }
        chmod(dir.databasePath, 0o444)
        chmod(dir.path, 0o555)
        defer { chmod(dir.path, 0o755) }
        let before = FileManager.default.contents(atPath: dir.databasePath)
        let error = #expect(throws: StoreError.self) { try openStore(dir) }
        if case .readOnly = error {} else { Issue.record("got \(String(describing: error))") }
        #expect(FileManager.default.contents(atPath: dir.databasePath) == before)
    }
}
