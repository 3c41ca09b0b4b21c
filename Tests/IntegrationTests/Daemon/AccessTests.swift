import Foundation
import PropdClient
import PropdCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Access rules against two real users (`propd-test-a`, `propd-test-b`,
/// created when missing), each a python client run through setpriv so the
/// daemon sees its uid in SO_PEERCRED. The test itself (root) may do everything.
@Suite struct AccessTests {
    static let enabled = TestUser.canSwitch && TestUser.python != nil

    /// A daemon with rules for the two users, seeded by root, its socket open to everyone.
    struct Fixture {
        let dir: ScratchDirectory
        let paths: DaemonPaths
        let inbox: NotifyInbox
        let daemon: Spawned
        let root: PropdClient
        let a: TestUser
        let b: TestUser
        let config: String

        static let rules = """
            access:
              - users: [propd-test-a]
                write: ["a.**"]
                read: ["shared.**"]
              - groups: [propd-test-b]          # b's own group
                read: ["a.public.*"]
                write: ["b.**", "shared.**"]
            """

        init(_ label: String) async throws {
            a = try TestUser.ensure("propd-test-a")
            b = try TestUser.ensure("propd-test-b")
            dir = try ScratchDirectory(label)
            paths = DaemonPaths(dir)
            config = dir.file("propd.conf")
            try dir.write("propd.conf", Self.rules)
            inbox = try NotifyInbox(path: dir.file("notify.sock"))
            daemon = try PropdLaunch.start(
                paths.arguments + ["--config", config], environment: ["NOTIFY_SOCKET": inbox.path], logPath: paths.log)
            try await daemon.ready(inbox)
            // The socket file's mode is the outer gate; open it so the rules decide.
            chmod(paths.socket, 0o666)
            root = try await PropdClient.connect(to: paths.socket)
            try await root.set(["a.public.p": "pub", "a.secret.s": "sec", "shared.z": 0, "b.own": 1])
        }

        func peer(_ user: TestUser) throws -> PeerClient {
            try PeerClient(user: user, socket: paths.socket, logPath: dir.file("\(user.name)-\(UUID().uuidString.prefix(4)).log"))
        }

        func stop() async throws {
            await root.close()
            daemon.signal(SIGTERM)
            #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
        }
    }

    @Test(.enabled(if: enabled, "needs root, setpriv, useradd and /usr/bin/python3 to act as two other users"))
    func readsAndWritesFollowTheRules() async throws {
        let f = try await Fixture("access-rw")
        let a = try f.peer(f.a)
        let b = try f.peer(f.b)

        // a writes a.**, reads shared.**; nothing else.
        #expect(try await a.call("Set", ["values": ["a.mine": 1]])["parameters"]?["revision"] != nil)
        #expect(try await a.call("Set", ["values": ["shared.z": 1]]).isDenied("shared.z"))
        #expect(try await a.call("Set", ["values": ["a.ok": 1, "b.no": 1]]).isDenied("b.no"))
        await #expect(throws: PropdClientError.refused(.noSuchKey(key: "a.ok"))) { try await f.root.get(["a.ok"]) }
        #expect(try await a.call("Get", ["keys": ["shared.z"]])["parameters"]?["properties"]?.keys == ["shared.z"])
        #expect(try await a.call("Get", ["keys": ["b.own"]]).isDenied("b.own"))
        #expect(try await a.call("History", ["key": "b.own"]).isDenied("b.own"))
        #expect(try await a.call("Delete", ["keys": ["b.own"]]).isDenied("b.own"))
        let listed = try await a.call("List", ["pattern": "**"])["parameters"]?["properties"]?.keys
        #expect(listed == ["a.mine", "a.public.p", "a.secret.s", "shared.z"])
        #expect(try await a.call("Stats")["parameters"]?["keys"] == 5)

        // b (through its group) reads a.public.*, writes b.** and shared.**.
        #expect(try await b.call("Get", ["keys": ["a.public.p"]])["parameters"]?["properties"]?.keys == ["a.public.p"])
        #expect(try await b.call("Get", ["keys": ["a.secret.s"]]).isDenied("a.secret.s"))
        // Access is checked before existence: a missing secret key is denied too.
        #expect(try await b.call("Get", ["keys": ["a.secret.none"]]).isDenied("a.secret.none"))
        #expect(try await b.call("Get", ["keys": ["a.public.none"]]).errorName == "io.propd.NoSuchKey")
        #expect(try await b.call("Set", ["values": ["shared.z": 2]])["parameters"]?["revision"] != nil)
        #expect(try await b.call("Set", ["values": ["a.public.p": "mine"]]).isDenied("a.public.p"))
        #expect(try await b.call("List", ["pattern": "a.**"])["parameters"]?["properties"]?.keys == ["a.public.p"])
        let secretList = try await b.call("List", ["pattern": "a.secret.*"])
        #expect(secretList["parameters"]?["properties"]?.keys ?? [] == [])
        #expect(secretList.isDenied("a.secret.*"), "\(secretList)")
        #expect(try await f.root.get(["shared.z", "a.public.p"]).map(\.value) == [2, "pub"])

        // A reload that widens b's rights applies to its open connection.
        try f.dir.write("propd.conf", Fixture.rules + "\n  - users: [propd-test-b]\n    read: [\"a.secret.*\"]\n")
        try await ReloadTests.reload(f.daemon, f.inbox)
        #expect(try await b.call("Get", ["keys": ["a.secret.s"]])["parameters"]?["properties"]?.keys == ["a.secret.s"])
        #expect(try await b.call("Set", ["values": ["a.secret.s": "x"]]).isDenied("a.secret.s"))
        try await f.stop()
    }

    @Test(.enabled(if: enabled, "needs root, setpriv, useradd and /usr/bin/python3 to act as two other users"))
    func bindingsNeedReadOnTheirSources() async throws {
        let f = try await Fixture("access-bind")
        let a = try f.peer(f.a)
        let b = try f.peer(f.b)

        #expect(try await a.call("Bind", ["key": "a.derived", "expression": "shared.z.map { v in v + 1 }"])["parameters"]?["revision"] != nil)
        #expect(try await a.call("Bind", ["key": "a.leak", "expression": "b.own.map { v in v }"]).isDenied("b.own"))
        #expect(try await a.call("Bind", ["key": "b.x", "expression": "a.public.p.map { v in v }"]).isDenied("b.x"))
        #expect(try await b.call("Bind", ["key": "b.copy", "expression": "a.public.p.map { v in v }"])["parameters"]?["revision"] != nil)
        #expect(try await b.call("Bind", ["key": "b.leak", "expression": "a.secret.s.map { v in v }"]).isDenied("a.secret.s"))
        #expect(try await b.call("Unbind", ["key": "a.derived"]).isDenied("a.derived"))
        // Nothing a denied Bind asked for exists.
        #expect(try await f.root.bindings().map(\.key) == ["a.derived", "b.copy"])
        // Bindings lists only the keys the caller may read.
        #expect(try await a.call("Bindings", ["pattern": "**"])["parameters"]?["bindings"]?.keys == ["a.derived"])
        #expect(try await b.call("Bindings")["parameters"]?["bindings"]?.keys == ["b.copy"])
        #expect(try await f.root.get(["a.derived", "b.copy"]).map(\.value) == [1, "pub"])
        try await f.stop()
    }

    @Test(.enabled(if: enabled, "needs root, setpriv, useradd and /usr/bin/python3 to act as two other users"))
    func subscribersSeeOnlyWhatTheyMayRead() async throws {
        let f = try await Fixture("access-sub")
        let b = try f.peer(f.b)
        let denied = try f.peer(f.b)
        let refused = try await denied.subscribe(["patterns": ["a.secret.*"]], until: "never")
        #expect(refused.isDenied("a.secret.*"), "\(refused)")

        let backlog = try await b.subscribe(["patterns": ["**"]], until: "a.public.end")
        #expect(backlog["synced"]?.keys == ["a.public.p", "b.own", "shared.z", ""], "\(backlog)")
        // Root writes readable and unreadable keys, each its own revision.
        try await f.root.set(["a.secret.s": "sec2"])
        try await f.root.set(["a.public.p": "pub2", "a.secret.s": "sec3"])
        try await f.root.set(["a.other": 1])
        try await f.root.set(["shared.z": 5])
        try await f.root.set(["a.public.end": true])
        let live = try await b.liveEvents()
        #expect(JSONValue.array(live).keys == ["a.public.p", "shared.z", "a.public.end"], "\(live)")
        try await f.stop()
    }

    /// Subscriptions opened while no rules existed: a SIGHUP that brings
    /// rules re-filters them, and one that may now read nothing is ended.
    @Test(.enabled(if: enabled, "needs root, setpriv, useradd and /usr/bin/python3 to act as two other users"))
    func aReloadRefiltersLiveSubscriptions() async throws {
        let b = try TestUser.ensure("propd-test-b")
        _ = try TestUser.ensure("propd-test-a")
        let dir = try ScratchDirectory("access-reload-sub")
        let paths = DaemonPaths(dir)
        try dir.write("propd.conf", "limits:\n  max-connections: 1024\n")
        let inbox = try NotifyInbox(path: dir.file("notify.sock"))
        let daemon = try PropdLaunch.start(
            paths.arguments + ["--config", dir.file("propd.conf")], environment: ["NOTIFY_SOCKET": inbox.path],
            logPath: paths.log)
        try await daemon.ready(inbox)
        chmod(paths.socket, 0o666)
        let root = try await PropdClient.connect(to: paths.socket)
        try await root.set(["a.public.p": "pub", "a.secret.s": "sec"])

        let everything = try PeerClient(user: b, socket: paths.socket, logPath: dir.file("b1.log"))
        let backlog = try await everything.subscribe(["patterns": ["**"]], until: "a.public.end")
        #expect(backlog["synced"]?.keys == ["a.public.p", "a.secret.s", ""], "\(backlog)")
        let secrets = try PeerClient(user: b, socket: paths.socket, logPath: dir.file("b2.log"))
        let secretBacklog = try await secrets.subscribe(["patterns": ["a.secret.*"]], until: "a.secret.never")
        #expect(secretBacklog["synced"]?.keys == ["a.secret.s", ""], "\(secretBacklog)")

        try dir.write("propd.conf", Fixture.rules)
        try await ReloadTests.reload(daemon, inbox)
        try await root.set(["a.secret.s": "sec2"])
        try await root.set(["a.public.p": "pub2"])
        try await root.set(["a.public.end": true])
        let live = try await everything.liveEvents()
        #expect(JSONValue.array(live).keys == ["a.public.p", "a.public.end"], "\(live)")
        // The subscription to a.secret.* may read nothing any more: it ended.
        let ended = try await secrets.nextLine()
        #expect(ended.isDenied("a.secret.*"), "\(ended)")

        await root.close()
        daemon.signal(SIGTERM)
        #expect(try await daemon.exit(timeout: .seconds(30)) == .exited(0))
    }

    /// A binding the caller may read, but whose expression names keys it may
    /// not read, shows neither those keys nor the expression.
    @Test(.enabled(if: enabled, "needs root, setpriv, useradd and /usr/bin/python3 to act as two other users"))
    func bindingsDoNotNameKeysTheCallerMayNotRead() async throws {
        let f = try await Fixture("access-names")
        try await f.root.bind("a.public.mirror", "combineLatest(a.secret.s, a.public.p).map { s, p in p }")
        let b = try f.peer(f.b)
        let listed = try await b.call("Bindings", ["pattern": "a.**"])
        #expect(listed["parameters"]?["bindings"]?.keys == ["a.public.mirror"])
        guard case .array(let all)? = listed["parameters"]?["bindings"], let binding = all.first else {
            Issue.record("no binding listed: \(listed)")
            return
        }
        #expect(binding["expression"] == JSONValue.string("<hidden: names keys you may not read>"), "\(listed)")
        #expect(binding["sources"] == ["a.public.p"])
        let properties = try await b.call("List", ["pattern": "a.public.*"])
        let text = "\(properties)"
        #expect(!text.contains("a.secret"), "\(text)")
        let got = try await b.call("Get", ["keys": ["a.public.mirror"]])
        #expect(!"\(got)".contains("a.secret"), "\(got)")
        // A cycle through a binding b may not read names that key as <hidden>.
        try await f.root.bind("a.secret.x", "b.loop.map { v in v }")
        try await f.root.bind("a.public.q", "a.secret.x.map { v in v }")
        let cycle = try await b.call("Bind", ["key": "b.loop", "expression": "a.public.q.map { v in v }"])
        #expect(cycle.errorName == "io.propd.BindingCycle", "\(cycle)")
        let named = "\(cycle)"
        #expect(!named.contains("a.secret.x") && named.contains("<hidden>") && named.contains("a.public.q"), "\(named)")
        // Root, who may read everything, sees the expression.
        #expect(try await f.root.bindings().first { $0.key == "a.public.mirror" }?.expression.contains("a.secret.s") == true)
        try await f.stop()
    }
}
