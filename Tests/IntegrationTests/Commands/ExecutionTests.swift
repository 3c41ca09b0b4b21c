import PropdClient
import PropdCore
import PropdTestSupport
import Testing

/// An execution's lifecycle as properties (CONTRACT 6.2): two revisions,
/// the second returned by Execute; the daemon's keys refused to clients;
/// `CMD.executing` as a binding source.
@Suite struct ExecutionTests {
    @Test(arguments: StoreKind.available) func anExecutionIsTwoRevisionsAndExecuteReturnsTheSecond(on store: StoreKind) async throws {
        let onStore = try DaemonOnStore(store)
        let daemon = onStore.process
        let observer = try await PropdClient.connect(to: daemon.socketPath)
        let events = EventCollector(observer.observe(["login.submit.*"]))
        _ = try await events.synced()

        let handler = try await RawHandler(["login.submit"], daemon: daemon)
        // The first Serve created both keys, in one revision.
        let created = try await events.take { $0.count == 2 }
        #expect(Set(created.map(\.key)) == ["login.submit.executing", "login.submit.error"])
        #expect(created.allSatisfy { $0.kind == .set && $0.revision == created[0].revision })
        #expect(created.first { $0.key == "login.submit.executing" }?.value == false)
        #expect(created.first { $0.key == "login.submit.error" }?.value == .null)

        let executor = try await PropdClient.connect(to: daemon.socketPath)
        async let answer = executor.execute("login.submit", argument: ["account": "ada", "password": "secret!"])
        let invocation = try await handler.nextInvocation()
        #expect(invocation.command == "login.submit")
        #expect(invocation.argument == ["account": "ada", "password": "secret!"])

        let started = try await events.take { $0.count == 2 }
        #expect(started.map(\.revision) == [started[0].revision, started[0].revision])
        #expect(started.first { $0.key == "login.submit.executing" }?.value == true)
        #expect(started.first { $0.key == "login.submit.error" }?.value == .null)
        #expect(try await observer.value("login.submit.executing") == true)

        #expect(try await complete(daemon, invocation.id, result: ["token": "t-1"])["error"] == nil)
        let finished = try await answer
        #expect(finished.result == ["token": "t-1"])
        let ended = try await events.take { $0.count == 2 }
        #expect(ended.allSatisfy { $0.revision == finished.revision })
        onStore.expectSuccessive([started[0].revision, finished.revision])
        #expect(ended.first { $0.key == "login.submit.executing" }?.value == false)
        #expect(ended.first { $0.key == "login.submit.error" }?.value == .null)
    }

    @Test(arguments: StoreKind.available) func aHandlerErrorIsCommandFailedAndStaysInCMDErrorUntilASuccess(on store: StoreKind) async throws {
        let onStore = try DaemonOnStore(store)
        let daemon = onStore.process
        let handler = try await RawHandler(["login.submit"], daemon: daemon)
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let reader = try await PropdClient.connect(to: daemon.socketPath)

        let failed = Task { try await client.execute("login.submit", argument: "x") }
        #expect(try await complete(daemon, try await handler.nextInvocation().id, error: "wrong password")["error"] == nil)
        await #expect(throws: PropdClientError.refused(.commandFailed(command: "login.submit", message: "wrong password"))) {
            try await failed.value
        }
        #expect(try await reader.value("login.submit.error") == "wrong password")
        #expect(try await reader.value("login.submit.executing") == false)

        // A success clears the error; a result of null comes back as none.
        async let succeeded = client.execute("login.submit")
        let invocation = try await handler.nextInvocation()
        #expect(invocation.argument == nil)
        #expect(try await complete(daemon, invocation.id)["error"] == nil)
        #expect(try await succeeded.result == nil)
        #expect(try await reader.value("login.submit.error") == .null)
    }

    @Test(arguments: StoreKind.available) func theKeysExistFromTheFirstExecuteEvenWithoutAHandler(on store: StoreKind) async throws {
        let onStore = try DaemonOnStore(store)
        let daemon = onStore.process
        let client = try await PropdClient.connect(to: daemon.socketPath)
        await #expect(throws: PropdClientError.refused(.noHandler(command: "lights.toggle"))) {
            try await client.execute("lights.toggle")
        }
        #expect(try await client.value("lights.toggle.executing") == false)
        #expect(try await client.value("lights.toggle.error") == .null)
        // Refused again, it writes nothing: no revision is spent.
        let before = try await client.revision()
        await #expect(throws: PropdClientError.refused(.noHandler(command: "lights.toggle"))) {
            try await client.execute("lights.toggle")
        }
        #expect(try await client.revision() == before)
        #expect(try await client.get(["lights.toggle.error"])[0].revision <= before)
    }

    @Test(arguments: StoreKind.available) func theDaemonsKeysAreRefusedToClientsAcrossRestarts(on store: StoreKind) async throws {
        let onStore = try DaemonOnStore(store)
        let daemon = onStore.process
        var client = try await PropdClient.connect(to: daemon.socketPath)
        await #expect(throws: PropdClientError.refused(.noHandler(command: "job.run"))) { try await client.execute("job.run") }

        func expectRefused(_ client: PropdClient) async {
            for key in ["job.run.executing", "job.run.error"] {
                await #expect(throws: PropdClientError.refused(.keyIsDerived(key: key))) { try await client.set([key: true]) }
                await #expect(throws: PropdClientError.refused(.keyIsDerived(key: key))) { try await client.delete([key]) }
                await #expect(throws: PropdClientError.refused(.keyIsDerived(key: key))) { try await client.bind(key, "x.map { $0 }") }
                await #expect(throws: PropdClientError.refused(.keyIsDerived(key: key))) { try await client.unbind(key) }
            }
            // A Set naming one of them writes none of its keys.
            await #expect(throws: PropdClientError.refused(.keyIsDerived(key: "job.run.error"))) {
                try await client.set(["job.other": 1, "job.run.error": "mine"])
            }
            await #expect(throws: PropdClientError.refused(.noSuchKey(key: "job.other"))) { try await client.get(["job.other"]) }
        }
        await expectRefused(client)
        // enabled is the users' key.
        try await client.set(["job.run.enabled": true])
        try await client.delete(["job.run.enabled"])

        try daemon.restart()
        client = try await PropdClient.connect(to: daemon.socketPath)
        await expectRefused(client)
        #expect(try await client.value("job.run.executing") == false)
    }

    @Test(arguments: StoreKind.available) func aBoundExecutingKeyIsRefusedAsACommand(on store: StoreKind) async throws {
        let onStore = try DaemonOnStore(store)
        let daemon = onStore.process
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.bind("odd.cmd.executing", "x.map { $0 }")
        await #expect(throws: PropdClientError.refused(.keyIsDerived(key: "odd.cmd.executing"))) { try await client.execute("odd.cmd") }
        let serve = try await rawCall(daemon, "Serve", ["commands": ["odd.cmd"]], more: true)
        #expect(serve["error"] == "io.propd.KeyIsDerived")
        #expect(serve["parameters"]?["key"] == "odd.cmd.executing")
    }

    @Test(arguments: StoreKind.available) func executingIsABindingSource(on store: StoreKind) async throws {
        let onStore = try DaemonOnStore(store)
        let daemon = onStore.process
        let client = try await PropdClient.connect(to: daemon.socketPath)
        let handler = try await RawHandler(["login.submit"], daemon: daemon)
        try await client.bind("login.button", "combineLatest(login.submit.executing, form.valid).map { busy, ok in !busy && ok }")
        try await client.set(["form.valid": true])
        #expect(try await client.value("login.button") == true)

        let events = EventCollector(client.observe(["login.button", "login.submit.executing"], initial: false))
        _ = try await events.synced()
        let executor = try await PropdClient.connect(to: daemon.socketPath)
        async let answer = executor.execute("login.submit")
        let invocation = try await handler.nextInvocation()
        // The button turns off in the very revision the execution starts.
        let started = try await events.take { $0.count == 2 }
        #expect(Set(started.map(\.key)) == ["login.button", "login.submit.executing"])
        #expect(started[0].revision == started[1].revision)
        #expect(started.first { $0.key == "login.button" }?.value == false)

        #expect(try await complete(daemon, invocation.id, result: true)["error"] == nil)
        let revision = try await answer.revision
        let ended = try await events.take { $0.count == 2 }
        #expect(ended.allSatisfy { $0.revision == revision })
        #expect(ended.first { $0.key == "login.button" }?.value == true)
    }
}
