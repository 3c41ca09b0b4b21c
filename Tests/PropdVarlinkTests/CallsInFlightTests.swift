import Testing

@testable import PropdVarlink

/// The connection handler's count of calls in flight, as a responding
/// method sees it: `alone` when nothing before the call still runs and
/// nothing waits behind it (a client waiting for each reply).
@Suite struct CallsInFlightTests {
    private func park(_ id: Int) -> String {
        #"{"method":"org.example.test.Park","parameters":{"id":\#(id)}}"# + "\0"
    }

    private let bigRead = #"{"method":"org.example.test.BigRead","parameters":{"bytes":10}}"# + "\0"

    @Test func aCallIsAloneOnlyWithNothingElseInFlight() throws {
        let h = try ConnectionHandlerTests.Harness()
        try h.send(park(1))
        #expect(h.lot.responder(1)?.alone == true)
        // Sent while 1 runs: a pipelining client.
        try h.send(park(2))
        #expect(h.lot.responder(2)?.alone == false)
        h.lot.responder(1)?.succeed([:])
        h.lot.responder(2)?.succeed([:])
        #expect(try h.replies().count == 2)
        // Everything answered: the next call is alone again.
        try h.send(park(3))
        #expect(h.lot.responder(3)?.alone == true)
    }

    @Test func aCallStartedFromTheWaitingLineIsAloneOnlyIfNothingWaitsBehindIt() throws {
        let h = try ConnectionHandlerTests.Harness()
        try h.send(park(1))
        // A read waits for 1; the calls behind it wait for the read.
        try h.send(bigRead + park(2) + park(3))
        #expect(h.lot.responder(2) == nil)
        h.lot.responder(1)?.succeed([:])
        h.channel.embeddedEventLoop.run()
        #expect(h.lot.responder(2)?.alone == false)
        #expect(h.lot.responder(3)?.alone == false)
    }

    @Test func aCallAfterAReadAnsweredAtOnceIsAlone() throws {
        let h = try ConnectionHandlerTests.Harness()
        try h.send(bigRead + park(1))
        #expect(h.lot.responder(1)?.alone == true)
    }
}
