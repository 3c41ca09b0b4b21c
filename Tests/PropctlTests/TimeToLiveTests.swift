import Foundation
import PropdCore
import PropdTestSupport
import Testing

/// `propctl set KEY VALUE --ttl 30s` (contract 6.1): units ms, s, m, h.
@Suite struct TimeToLiveTests {
    private static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    private static func expires(_ key: String, _ daemon: PropdProcess) throws -> Int64? {
        let reply = try Propctl.run(["--json", "get", key], daemon: daemon).json
        guard case .array(let properties)? = reply["properties"], case .integer(let deadline)? = properties.first?["expires"]
        else { return nil }
        return deadline
    }

    @Test func everyUnitSetsTheDeadline() throws {
        let daemon = try PropdProcess()
        for (text, milliseconds) in [("1500ms", 1_500), ("30s", 30_000), ("2m", 120_000), ("1h", 3_600_000),
            ("1.5s", 1_500), ("90000", 90_000)] as [(String, Int64)]
        {
            let before = Self.now()
            let set = try Propctl.run(["set", "k", "v", "--ttl", text], daemon: daemon)
            #expect(set.status == 0, "\(text): \(set)")
            let deadline = try #require(try Self.expires("k", daemon), "\(text)")
            #expect(deadline >= before + milliseconds && deadline <= Self.now() + milliseconds, "\(text)")
        }
        #expect(try Propctl.run(["set", "k", "v"], daemon: daemon).status == 0)
        #expect(try Self.expires("k", daemon) == nil, "a Set without --ttl makes the key permanent")
    }

    @Test func aBadDurationIsAUsageErrorAndWritesNothing() throws {
        let daemon = try PropdProcess()
        for text in ["0s", "-5s", "3d", "soon", "25d", ""] {
            let set = try Propctl.run(["set", "k", "v", "--ttl", text], daemon: daemon)
            #expect(set.status == 2, "\(text): \(set)")
        }
        #expect(try Propctl.run(["--json", "stats"], daemon: daemon).json["revision"] == 0)
    }

    @Test func aDerivedKeyRefusesATTL() throws {
        let daemon = try PropdProcess()
        #expect(try Propctl.run(["set", "a", "1"], daemon: daemon).status == 0)
        #expect(try Propctl.run(["bind", "b", "a.map { $0 + 1 }"], daemon: daemon).status == 0)
        let set = try Propctl.run(["set", "b", "5", "--ttl", "10s"], daemon: daemon)
        #expect(set.status == 1, "\(set)")
        #expect(set.stderr.contains("KeyIsDerived"), "\(set)")
    }
}
