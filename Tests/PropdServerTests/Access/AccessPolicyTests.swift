#if canImport(Glibc)
import Glibc
#endif
import PropdCore
import PropdServer
import PropdVarlink
import Testing

@Suite struct AccessPolicyTests {
    let directory = FakeAccountDirectory()
    let daemonUID: UInt32 = 990

    func key(_ text: String) throws -> Key { try Key(text) }
    func pattern(_ text: String) throws -> KeyPattern { try KeyPattern(text) }

    /// alice (1001, in kiosk), bob (1002, no groups), carol (1003, kiosk+staff).
    func policy(_ yaml: String) throws -> AccessPolicy {
        try DaemonConfiguration.resolve(
            environment: ["HOME": "/h"], uid: daemonUID, flags: DaemonFlags(),
            file: ConfigurationText(path: "/c.conf", text: yaml), directory: directory
        ).access
    }

    let alice = PeerCredentials(uid: 1001, gid: 1001, pid: 10)
    let bob = PeerCredentials(uid: 1002, gid: 1002, pid: 11)
    let carol = PeerCredentials(uid: 1003, gid: 1003, pid: 12)

    @Test func withoutRulesEveryoneMayDoEverything() throws {
        let policy = AccessPolicy(rules: [], daemonUID: daemonUID, directory: directory)
        #expect(policy.isOpen)
        let rights = policy.rights(for: bob)
        #expect(rights.isUnrestricted)
        #expect(rights.allows(.write, try key("any.key")))
        #expect(rights.readScope(of: .all) == .all)
    }

    @Test func rootAndTheDaemonsUserMayDoEverything() throws {
        let policy = try policy("access:\n  - users: [alice]\n    read: [\"ui.*\"]\n")
        #expect(!policy.isOpen)
        for peer in [PeerCredentials(uid: 0, gid: 0, pid: 1), PeerCredentials(uid: daemonUID, gid: 5, pid: 2)] {
            let rights = policy.rights(for: peer)
            #expect(rights.allows(.write, try key("secret.thing")))
            #expect(rights.readScope(of: .all) == .all)
        }
    }

    @Test func userByNameAndById() throws {
        let policy = try policy("""
            access:
              - users: [alice]
                read: ["ui.**"]
              - users: [1002]
                write: ["room.*.temp"]
            """)
        let a = policy.rights(for: alice)
        #expect(a.allows(.read, try key("ui.login.enabled")))
        #expect(!a.allows(.write, try key("ui.login.enabled")))
        #expect(!a.allows(.read, try key("room.kitchen.temp")))
        let b = policy.rights(for: bob)
        #expect(b.allows(.write, try key("room.kitchen.temp")))
        #expect(b.allows(.read, try key("room.kitchen.temp")), "write implies read")
        #expect(!b.allows(.read, try key("room.kitchen.humidity")))
        #expect(!b.allows(.read, try key("ui.login.enabled")))
    }

    @Test func groupsBySupplementaryMembershipPrimaryGidAndId() throws {
        let policy = try policy("""
            access:
              - groups: [kiosk]
                read: ["ui.**"]
              - groups: [2003]
                write: ["staff.*"]
              - groups: [1002]
                read: ["bob.*"]
            """)
        // alice is a supplementary member of kiosk.
        #expect(policy.rights(for: alice).allows(.read, try key("ui.x")))
        #expect(!policy.rights(for: alice).allows(.write, try key("staff.x")))
        // carol is in kiosk and staff (2003, given by id).
        #expect(policy.rights(for: carol).allows(.read, try key("ui.x")))
        #expect(policy.rights(for: carol).allows(.write, try key("staff.x")))
        // bob is in no supplementary group, but his primary gid is 1002.
        #expect(policy.rights(for: bob).allows(.read, try key("bob.x")))
        #expect(!policy.rights(for: bob).allows(.read, try key("ui.x")))
        // A process running with primary gid kiosk gets kiosk's rights.
        #expect(policy.rights(for: PeerCredentials(uid: 4242, gid: 2001, pid: 3)).allows(.read, try key("ui.x")))
    }

    @Test func everyoneRule() throws {
        let policy = try policy("access:\n  - users: [\"*\"]\n    read: [\"public.**\"]\n")
        let stranger = PeerCredentials(uid: 31337, gid: 31337, pid: 4)
        #expect(policy.rights(for: stranger).allows(.read, try key("public.a.b")))
        #expect(!policy.rights(for: stranger).allows(.write, try key("public.a.b")))
        #expect(!policy.rights(for: stranger).allows(.read, try key("private.a")))
    }

    /// A Set skips its per-key checks for a caller no rule can refuse.
    @Test func onlyCallersSomeRuleCanRefuseAreRestricted() throws {
        let open = PolicyAccessCheck(policy: AccessPolicy(rules: [], daemonUID: daemonUID, directory: directory))
        let ruled = PolicyAccessCheck(policy: try policy("access:\n  - users: [alice]\n    write: [\"ui.*\"]\n"))
        let bobsConnection = VarlinkPeerCredentials(pid: 11, uid: bob.uid, gid: bob.gid)
        #expect(!open.restricts(bobsConnection))
        #expect(!open.restricts(nil))
        #expect(ruled.restricts(VarlinkPeerCredentials(pid: 10, uid: alice.uid, gid: alice.gid)))
        #expect(ruled.restricts(bobsConnection))
        // Without credentials nobody can be matched to a rule.
        #expect(ruled.restricts(nil))
        #expect(!ruled.restricts(VarlinkPeerCredentials(pid: 1, uid: 0, gid: 0)))
        #expect(!ruled.restricts(VarlinkPeerCredentials(pid: 2, uid: daemonUID, gid: 5)))
    }

    @Test func deniedCallsNameTheKey() throws {
        let policy = try policy("access:\n  - users: [alice]\n    write: [\"ui.*\"]\n")
        let rights = policy.rights(for: alice)
        try rights.check(.write, try key("ui.a"))
        let denied = #expect(throws: PermissionDenied.self) {
            try rights.check(.write, [try key("ui.a"), try key("room.b"), try key("room.c")])
        }
        #expect(denied == PermissionDenied(key: "room.b", mode: .write))
        #expect(throws: PermissionDenied(key: "x.y", mode: .read)) {
            try policy.check(peer: bob, .read, key: try key("x.y"))
        }
    }

    @Test func readScopeOfSubscriptionPatterns() throws {
        let policy = try policy("""
            access:
              - users: [alice]
                read: ["ui.**", "room.*.temp"]
            """)
        let rights = policy.rights(for: alice)
        #expect(rights.readScope(of: try pattern("ui.login.*")) == .all)
        #expect(rights.readScope(of: try pattern("ui.**")) == .all)
        #expect(rights.readScope(of: try pattern("room.kitchen.temp")) == .all)
        #expect(rights.readScope(of: try pattern("room.*.temp")) == .all)
        #expect(rights.readScope(of: try pattern("room.**")) == .someKeys)
        #expect(rights.readScope(of: try pattern("**")) == .someKeys)
        #expect(rights.readScope(of: try pattern("room.*.humidity")) == .none)
        #expect(rights.readScope(of: try pattern("secret.**")) == .none)
        #expect(rights.mayRead(try pattern("ui.a.b")))
        #expect(!rights.mayRead(.all))
        #expect(try rights.checkRead(try pattern("room.**")) == .someKeys)
        #expect(throws: PermissionDenied(key: "secret.**", mode: .read)) { try rights.checkRead(try pattern("secret.**")) }
        // Per-key filtering for `.someKeys`: a subscriber to room.** sees only temps.
        let keys = try ["room.a.temp", "room.a.humidity", "room.b.temp", "room.x"].map(key)
        #expect(keys.filter { rights.allows(.read, $0) }.map(\.rawValue) == ["room.a.temp", "room.b.temp"])
    }

    @Test func realSystemAccountsByName() throws {
        // Names from this machine's /etc/passwd and /etc/group.
        let system = SystemAccountDirectory()
        let me = getuid()
        let myGroup = getgid()
        let file = ConfigurationText(path: "/c.conf", text: """
            access:
              - users: [root, daemon]
                groups: [nogroup]
                read: ["sys.**"]
              - users: [\(me)]
                groups: [\(myGroup)]
                write: ["mine.*"]
            """)
        let config = try DaemonConfiguration.resolve(environment: ["HOME": "/h"], uid: 54321, flags: DaemonFlags(), file: file, directory: system)
        #expect(config.access.rules[0].subjects == [.user(0), .user(1), .group(65534)])
        let daemonUser = config.access.rights(for: PeerCredentials(uid: 1, gid: 1, pid: 5))
        #expect(daemonUser.allows(.read, try key("sys.a")))
        #expect(!daemonUser.allows(.write, try key("sys.a")))
        let nogroupMember = config.access.rights(for: PeerCredentials(uid: 65534, gid: 65534, pid: 6))
        #expect(nogroupMember.allows(.read, try key("sys.a")))
        // The current uid (root in CI, which is unrestricted anyway).
        #expect(config.access.rights(for: PeerCredentials(uid: me, gid: myGroup, pid: getpid())).allows(.write, try key("mine.x")))
    }
}
