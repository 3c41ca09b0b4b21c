import PropdClient
import PropdCore
import PropdTestSupport
import Testing

/// What refuses an execution before it starts (`CMD.enabled`, one at a
/// time), what ends one that takes too long, and bad input.
@Suite struct CommandGuardTests {
    @Test(arguments: StoreKind.available) func enabledGatesExecuteAsAValueOrABinding(on store: StoreKind) async throws {
        let onStore = try DaemonOnStore(store)
        let daemon = onStore.process
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let handler = try await swiftHandler(["login.submit"], daemon: daemon) { _ in "ok" }
        defer { handler.cancel() }

        // Absent: enabled.
        #expect(try await client.execute("login.submit").result == "ok")
        for refused: JSONValue in [false, "yes", 1, .null] {
            try await client.set(["login.submit.enabled": refused])
            let before = try await client.revision()
            await #expect(throws: PropdClientError.refused(.commandDisabled(command: "login.submit")), "enabled = \(refused)") {
                try await client.execute("login.submit")
            }
            // Refused before starting: nothing written.
            #expect(try await client.revision() == before)
            #expect(try await client.value("login.submit.executing") == false)
        }
        try await client.set(["login.submit.enabled": true])
        #expect(try await client.execute("login.submit").result == "ok")

        // The login form of the notes: enabled follows the two fields.
        try await client.delete(["login.submit.enabled"])
        try await client.bind(
            "login.submit.enabled",
            "combineLatest(form.account, form.password).map { a, p in len(a) > 5 && len(p) > 5 }")
        // Bound but without a value yet (its sources do not exist): not true.
        await #expect(throws: PropdClientError.refused(.commandDisabled(command: "login.submit"))) {
            try await client.execute("login.submit")
        }
        try await client.set(["form.account": "ada", "form.password": "secret!"])
        await #expect(throws: PropdClientError.refused(.commandDisabled(command: "login.submit"))) {
            try await client.execute("login.submit")
        }
        try await client.set(["form.account": "ada.lovelace"])
        #expect(try await client.execute("login.submit").result == "ok")
    }

    @Test(arguments: StoreKind.available) func oneExecutionAtATime(on store: StoreKind) async throws {
        let onStore = try DaemonOnStore(store)
        let daemon = onStore.process
        let handler = try await RawHandler(["report.build"], daemon: daemon)
        let first = try await PropdClient.connect(to: daemon.socketPath)
        let second = try await PropdClient.connect(to: daemon.socketPath)
        async let running = first.execute("report.build", argument: 1)
        let invocation = try await handler.nextInvocation()
        await #expect(throws: PropdClientError.refused(.commandBusy(command: "report.build"))) {
            try await second.execute("report.build", argument: 2)
        }
        #expect(try await complete(daemon, invocation.id, result: "done")["error"] == nil)
        #expect(try await running.result == "done")
        // Free again once the first has ended.
        async let next = second.execute("report.build", argument: 3)
        let again = try await handler.nextInvocation()
        #expect(again.argument == 3)
        #expect(try await complete(daemon, again.id, result: "done")["error"] == nil)
        #expect(try await next.result == "done")
    }

    @Test(arguments: StoreKind.available) func aHandlerThatNeverAnswersTimesOut(on store: StoreKind) async throws {
        let onStore = try DaemonOnStore(store)
        let daemon = onStore.process
        let handler = try await RawHandler(["slow.job"], daemon: daemon)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let reader = try await PropdClient.connect(to: daemon.socketPath)
        await #expect(throws: PropdClientError.refused(.commandTimeout(command: "slow.job"))) {
            try await client.execute("slow.job", timeout: .milliseconds(200))
        }
        #expect(try await reader.value("slow.job.executing") == false)
        #expect(try await reader.value("slow.job.error") == "timeout after 200ms")
        // The late answer finds nothing.
        let id = try await handler.nextInvocation().id
        let late = try await complete(daemon, id, result: 1)
        #expect(late["error"] == "io.propd.NoSuchInvocation")
        #expect(late["parameters"]?["id"] == .string(id))
    }

    @Test(arguments: StoreKind.available) func badInputIsRefusedWithNamedErrorsAndChangesNothing(on store: StoreKind) async throws {
        let onStore = try DaemonOnStore(store)
        let daemon = onStore.process
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let handler = try await RawHandler(["ok.cmd"], daemon: daemon)
        let before = try await client.revision()

        for bad in ["", "a..b", "a.*", "x y"] {
            let reply = try await rawCall(daemon, "Execute", ["command": .string(bad)])
            #expect(reply["error"] == "io.propd.InvalidKey", "\(bad)")
        }
        // A name that leaves no room for CMD.executing.
        let long = String(repeating: "a", count: 250)
        let tooLong = try await rawCall(daemon, "Execute", ["command": .string(long)])
        #expect(tooLong["error"] == "io.propd.InvalidKey")
        #expect(tooLong["parameters"]?["key"] == .string(long))
        let deep = Array(repeating: "s", count: 32).joined(separator: ".")
        #expect(try await rawCall(daemon, "Serve", ["commands": [.string(deep)]], more: true)["error"] == "io.propd.InvalidKey")

        for timeout: JSONValue in [0, -5, 2.5, "10s", .integer(1 << 32)] {
            let reply = try await rawCall(daemon, "Execute", ["command": "ok.cmd", "timeout": timeout])
            #expect(reply["error"] == "org.varlink.service.InvalidParameter", "\(timeout)")
            #expect(reply["parameters"]?["parameter"] == "timeout")
        }
        #expect(try await rawCall(daemon, "Execute", [:])["error"] == "org.varlink.service.InvalidParameter")
        #expect(try await rawCall(daemon, "Serve", ["commands": ["ok.cmd"]])["error"] == "org.varlink.service.ExpectedMore")
        #expect(try await rawCall(daemon, "Serve", ["commands": []], more: true)["error"] == "org.varlink.service.InvalidParameter")
        #expect(try await rawCall(daemon, "Serve", ["commands": "ok.cmd"], more: true)["error"] == "org.varlink.service.InvalidParameter")
        let unknown = try await complete(daemon, "no-such-id", result: 1)
        #expect(unknown["error"] == "io.propd.NoSuchInvocation")
        #expect(unknown["parameters"]?["id"] == "no-such-id")
        #expect(try await rawCall(daemon, "Complete", ["id": 5])["error"] == "org.varlink.service.InvalidParameter")
        #expect(try await client.revision() == before)

        // A result and an error at once: refused, and the handler may answer again.
        async let answer = client.execute("ok.cmd")
        let id = try await handler.nextInvocation().id
        let both = try await complete(daemon, id, result: 1, error: "and an error")
        #expect(both["error"] == "org.varlink.service.InvalidParameter")
        #expect(both["parameters"]?["parameter"] == "error")
        #expect(try await complete(daemon, id, result: 2)["error"] == nil)
        #expect(try await answer.result == 2)
    }
}
