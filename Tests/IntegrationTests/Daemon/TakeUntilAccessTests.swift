import PropdClient
import PropdCore
import Testing

/// `takeUntil(KEY)` reads KEY (its changes end the stream), so declaring it
/// needs read access to KEY like any source (AccessTests' users and rules).
@Suite struct TakeUntilAccessTests {
    @Test(.enabled(if: AccessTests.enabled, "needs root, setpriv, useradd and /usr/bin/python3 to act as another user"))
    func takeUntilsKeyNeedsReadAccess() async throws {
        let f = try await AccessTests.Fixture("access-until")
        let a = try f.peer(f.a)
        let denied = try await a.call("Bind", ["key": "a.until", "expression": "shared.z.takeUntil(b.own)"])
        #expect(denied.isDenied("b.own"), "\(denied)")
        await #expect(throws: PropdClientError.refused(.noSuchKey(key: "a.until"))) { try await f.root.get(["a.until"]) }
        let bound = try await a.call("Bind", ["key": "a.until", "expression": "shared.z.takeUntil(shared.stop)"])
        #expect(bound["parameters"]?["sources"] == ["shared.z", "shared.stop"], "\(bound)")
        #expect(try await f.root.get(["a.until"]).map(\.value) == [0])
        try await f.stop()
    }
}
