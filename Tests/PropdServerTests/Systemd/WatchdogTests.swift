import PropdServer
import Testing

@Suite struct WatchdogTests {
    @Test func pingsAtHalfTheTimeout() throws {
        let watchdog = try #require(Watchdog(environment: ["WATCHDOG_USEC": "30000000"], pid: 5))
        #expect(watchdog.timeout == .seconds(30))
        #expect(watchdog.pingInterval == .seconds(15))
        let odd = try #require(Watchdog(environment: ["WATCHDOG_USEC": "3"], pid: 5))
        #expect(odd.pingInterval == .nanoseconds(1500))
    }

    @Test func watchdogPidMustBeThisProcess() {
        #expect(Watchdog(environment: ["WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "5"], pid: 5) != nil)
        #expect(Watchdog(environment: ["WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "6"], pid: 5) == nil)
        #expect(Watchdog(environment: ["WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "x"], pid: 5) == nil)
    }

    @Test func offWhenUnsetZeroOrMalformed() {
        #expect(Watchdog(environment: [:], pid: 5) == nil)
        #expect(Watchdog(environment: ["WATCHDOG_USEC": "0"], pid: 5) == nil)
        #expect(Watchdog(environment: ["WATCHDOG_USEC": "-1"], pid: 5) == nil)
        #expect(Watchdog(environment: ["WATCHDOG_USEC": "soon"], pid: 5) == nil)
    }
}
