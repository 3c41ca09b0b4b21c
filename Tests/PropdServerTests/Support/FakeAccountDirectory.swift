import PropdServer

/// A user and group database in memory, so access decisions are tested for
/// users and groups this machine does not have.
struct FakeAccountDirectory: AccountDirectory {
    var users: [String: UInt32] = ["alice": 1001, "bob": 1002, "carol": 1003]
    var groups: [String: UInt32] = ["kiosk": 2001, "sensors": 2002, "staff": 2003]
    /// Supplementary groups per uid.
    var memberships: [UInt32: [UInt32]] = [1001: [2001], 1003: [2001, 2003]]

    func userID(named name: String) -> UInt32? { users[name] }
    func groupID(named name: String) -> UInt32? { groups[name] }
    func groupIDs(ofUser uid: UInt32, primaryGroup: UInt32) -> [UInt32] {
        [primaryGroup] + (memberships[uid] ?? [])
    }
}

/// The repository's root, for tests that read `examples/` and `systemd/`.
let repositoryRoot: String = {
    var path = #filePath
    for _ in 0..<3 {  // Tests/PropdServerTests/Support/FakeAccountDirectory.swift
        path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }
    return String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
}()
