import PropdCore
import PropdTestSupport
import Testing

/// `propctl graph` draws the edge from takeUntil's KEY dashed, labelled
/// `takeUntil`: a stop signal, not a value the binding reads.
@Suite struct GraphStopSignalTests {
    @Test func takeUntilsKeyIsADashedEdge() throws {
        let daemon = try PropdProcess()
        let bind = try Propctl.run(["bind", "cell.taps", "cell.button.map { $0 + 1 }.takeUntil(cell.reused)"], daemon: daemon)
        #expect(bind.status == 0, "\(bind)")
        let both = try Propctl.run(["bind", "first", "a.takeUntil(a)"], daemon: daemon)
        #expect(both.status == 0, "\(both)")
        let graph = try Propctl.run(["graph"], daemon: daemon)
        #expect(graph.status == 0, "\(graph)")
        let dot = graph.stdout
        #expect(dot.contains(#""cell.reused" -> "cell.taps" [label="takeUntil", style=dashed];"#), "\(dot)")
        #expect(dot.contains(#""cell.button" -> "cell.taps" [label="map → takeUntil"];"#), "\(dot)")
        #expect(dot.contains(#""cell.reused" [shape=ellipse]"#), "\(dot)")
        // A key that is both the source and KEY carries values: a solid edge.
        #expect(dot.contains(#""a" -> "first" [label="takeUntil"];"#), "\(dot)")
    }
}
