import PropdCore
import PropdServer
import Synchronization
import Testing

/// Counts group lookups, to show rights are worked out once per connection.
final class CountingDirectory: AccountDirectory {
    let inner = FakeAccountDirectory()
    let lookups = Atomic<Int>(0)

    func userID(named name: String) -> UInt32? { inner.userID(named: name) }
    func groupID(named name: String) -> UInt32? { inner.groupID(named: name) }
    func groupIDs(ofUser uid: UInt32, primaryGroup: UInt32) -> [UInt32] {
        lookups.add(1, ordering: .relaxed)
        return inner.groupIDs(ofUser: uid, primaryGroup: primaryGroup)
    }
}

@Suite struct AccessRightsTests {
    let alice = PeerCredentials(uid: 1001, gid: 1001, pid: 10)

    func rules(_ yaml: String, directory: any AccountDirectory = FakeAccountDirectory()) throws -> AccessPolicy {
        let file = try ConfigurationFile.parse(yaml, path: "/c.conf", directory: directory)
        return AccessPolicy(rules: file.access, daemonUID: 990, directory: directory)
    }

    @Test func bindingNeedsWriteOnTheKeyAndReadOnEverySource() throws {
        let policy = try rules("""
            access:
              - users: [alice]
                read: ["form.*"]
                write: ["ui.*"]
            """)
        let rights = policy.rights(for: alice)
        let sources = [try Key("form.account"), try Key("form.password")]
        try rights.checkBinding(key: try Key("ui.enabled"), sources: sources, hasDynamicSources: false)
        #expect(throws: PermissionDenied(key: "form.enabled", mode: .write)) {
            try rights.checkBinding(key: try Key("form.enabled"), sources: sources, hasDynamicSources: false)
        }
        #expect(throws: PermissionDenied(key: "secret.pin", mode: .read)) {
            try rights.checkBinding(key: try Key("ui.enabled"), sources: sources + [try Key("secret.pin")], hasDynamicSources: false)
        }
        #expect(throws: PermissionDenied(key: "**", mode: .read)) {
            try rights.checkBinding(key: try Key("ui.volume"), sources: sources, hasDynamicSources: true)
        }
    }

    @Test func dynamicSourcesNeedReadOnEverything() throws {
        let policy = try rules("access:\n  - users: [alice]\n    read: [\"**\"]\n    write: [\"ui.*\"]\n")
        try policy.rights(for: alice).checkBinding(key: try Key("ui.v"), sources: [], hasDynamicSources: true)
    }

    @Test func groupsAreLookedUpOncePerConnection() throws {
        let directory = CountingDirectory()
        let policy = try rules("access:\n  - groups: [kiosk]\n    read: [\"ui.**\"]\n", directory: directory)
        let rights = policy.rights(for: alice)
        #expect(directory.lookups.load(ordering: .relaxed) == 1)
        for _ in 0..<100 { _ = rights.allows(.read, try Key("ui.a")) }
        #expect(directory.lookups.load(ordering: .relaxed) == 1)
        #expect(rights.groups == [1001, 2001])

        // A reload with new rules reuses the groups: no new lookup, new rights.
        let reloaded = try rules("access:\n  - groups: [kiosk]\n    read: [\"room.*\"]\n", directory: directory)
        let renewed = reloaded.rights(for: rights.peer, groups: rights.groups)
        #expect(directory.lookups.load(ordering: .relaxed) == 1)
        #expect(renewed.allows(.read, try Key("room.a")))
        #expect(!renewed.allows(.read, try Key("ui.a")), "a revoked grant no longer applies to an open connection")
    }

    @Test func rulesWithoutGroupsNeedNoLookup() throws {
        let directory = CountingDirectory()
        let policy = try rules("access:\n  - users: [alice]\n    read: [\"ui.**\"]\n", directory: directory)
        _ = policy.rights(for: alice)
        #expect(directory.lookups.load(ordering: .relaxed) == 0)
    }
}
