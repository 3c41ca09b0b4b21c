import PropdTestSupport
import Foundation
import PropdCore
import Testing

/// `watch --exec CMD`: CMD runs once per event, one at a time, in revision
/// order, with the event in PROPD_KEY / PROPD_VALUE / PROPD_REVISION /
/// PROPD_KIND, and carries on across a daemon restart.
@Suite struct WatchExecTests {
    @Test func runsTheCommandPerEventInOrderWithTheEventInItsEnvironment() throws {
        let daemon = try PropdProcess()
        _ = try Propctl.run(["set", "room.temp", "21"], daemon: daemon)  // 1
        let log = daemon.directory + "/events.log"
        // Each run sleeps a little between its two lines: runs that overlapped
        // would interleave them, so every "begin" must be followed by its "end".
        let command = #"echo "begin $PROPD_REVISION $PROPD_KIND $PROPD_KEY ${PROPD_VALUE-unset}" >> "$LOG"; "#
            + #"sleep 0.05; echo "end $PROPD_REVISION" >> "$LOG"; echo "ran $PROPD_REVISION""#
        let watch = try StreamingProcess(
            ["watch", "room.**", "--exec", command], socket: daemon.socketPath, environment: ["LOG": log])
        try watch.waitForLines("the initial event's run") { $0.contains("ran 1") }
        _ = try Propctl.run(["set", "room.temp", "22", "room.name", #""Kitchen""#], daemon: daemon)  // 2
        _ = try Propctl.run(["set", "room.cfg", #"{"a":[1,2]}"#], daemon: daemon)  // 3
        _ = try Propctl.run(["del", "room.name"], daemon: daemon)  // 4
        try watch.waitForLines("the delete's run") { $0.contains("ran 4") }

        // The daemon restarts: the command goes on with the next revision, once.
        try daemon.restart()
        _ = try Propctl.run(["set", "room.temp", "-3"], daemon: daemon)  // 5
        try watch.waitForLines("the run after the restart") { $0.contains("ran 5") }
        #expect(try watch.stop(with: SIGINT) == 0)

        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines == [
            "begin 1 initial room.temp 21", "end 1",
            "begin 2 set room.name \"Kitchen\"", "end 2",
            "begin 2 set room.temp 22", "end 2",
            "begin 3 set room.cfg {\"a\":[1,2]}", "end 3",
            "begin 4 delete room.name unset", "end 4",
            "begin 5 set room.temp -3", "end 5",
        ])
    }

    @Test func aFailingCommandIsReportedAndTheNextEventStillRuns() throws {
        let daemon = try PropdProcess()
        let watch = try StreamingProcess(
            ["watch", "k", "--no-initial", "--exec", #"echo "ran $PROPD_VALUE"; [ "$PROPD_VALUE" != 1 ]"#],
            socket: daemon.socketPath, captureStandardError: true)
        // Subscribed once Stats counts it (each Stats is a process round trip, which paces the loop).
        let deadline = ContinuousClock.now + .seconds(30)
        while (try? Propctl.run(["--json", "stats"], daemon: daemon).json["subscriptions"]) != .integer(1) {
            guard ContinuousClock.now < deadline else { throw StreamingProcess.Timeout(waitingFor: "subscribe", seen: []) }
        }
        _ = try Propctl.run(["set", "k", "1"], daemon: daemon)
        _ = try Propctl.run(["set", "k", "2"], daemon: daemon)
        let lines = try watch.waitForLines("both runs") { $0.contains("ran 2") }
        #expect(lines.contains { $0.contains("the command exited with status 1 for k at revision 1") }, "\(lines)")
        #expect(try watch.stop(with: SIGTERM) == 0)
    }
}
