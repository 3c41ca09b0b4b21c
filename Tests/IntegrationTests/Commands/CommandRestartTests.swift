import PropdClient
import PropdCore
import PropdTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Executions live in memory: a restart ends those it interrupted as
/// failed, so no command stays executing forever.
@Suite struct CommandRestartTests {
    @Test(arguments: StoreKind.available) func aCrashWithAnExecutionOpenEndsItAsFailedAtTheNextStart(on store: StoreKind) async throws {
        let onStore = try DaemonOnStore(store)
        let daemon = onStore.process
        let client = try await PropdClient.connect(to: daemon.socketPath)
        try await client.set(["form.valid": true])
        try await client.bind("login.button", "combineLatest(login.submit.executing, form.valid).map { busy, ok in !busy && ok }")
        let handler = try await RawHandler(["login.submit"], daemon: daemon)
        let executor = try await PropdClient.connect(to: daemon.socketPath)
        async let answer = executor.execute("login.submit")
        _ = try await handler.nextInvocation()
        #expect(try await client.value("login.submit.executing") == true)
        #expect(try await client.value("login.button") == false)

        daemon.kill()
        // The caller learns that the connection went, not a made-up result.
        do {
            _ = try await answer
            Issue.record("Execute succeeded across a crash")
        } catch let error as PropdClientError {
            #expect(error.isUnreachable, "\(error)")
        }

        try daemon.restart()
        let after = try await PropdClient.connect(to: daemon.socketPath)
        #expect(try await after.value("login.submit.executing") == false)
        #expect(try await after.value("login.submit.error") == "the daemon restarted during the execution")
        // The end was propagated like any change: the button is back on.
        #expect(try await after.value("login.button") == true)
        // And the command works again once someone serves it.
        let again = try await RawHandler(["login.submit"], daemon: daemon)
        async let next = after.execute("login.submit")
        #expect(try await complete(daemon, try await again.nextInvocation().id, result: 1)["error"] == nil)
        #expect(try await next.result == 1)
    }

    @Test(arguments: StoreKind.available) func aGracefulStopWithAnExecutionOpenLeavesNothingExecuting(on store: StoreKind) async throws {
        let onStore = try DaemonOnStore(store)
        let daemon = onStore.process
        let handler = try await RawHandler(["backup.run"], daemon: daemon)
        let executor = try await PropdClient.connect(to: daemon.socketPath)
        async let answer = executor.execute("backup.run")
        _ = try await handler.nextInvocation()
        #expect(daemon.stop() == 0)
        _ = try? await answer
        try daemon.restart()
        let client = try await PropdClient.connect(to: daemon.socketPath)
        #expect(try await client.value("backup.run.executing") == false)
        // Ended either as the handler's connection closed, or at the start.
        let error = try await client.value("backup.run.error")
        #expect(
            error == "the daemon restarted during the execution"
                || error == "no handler: the handler disconnected during the execution", "\(String(describing: error))")
    }
}
