import PropdTestSupport
import Foundation
import PropdCore
import Testing

/// Errors where users look: what bind landed on, a derived key in error on
/// `get` (exit 4), unbind of a plain key, `--since` beyond the head.
@Suite struct VisibleErrorTests {
    let daemon: PropdProcess

    init() throws { daemon = try PropdProcess() }

    @Test func bindPrintsTheValueItLandedOn() throws {
        _ = try Propctl.run(["set", "room.temp", "21.5"], daemon: daemon)
        let bind = try Propctl.run(["bind", "room.f", "room.temp.map { $0 * 9 / 5 + 32 }"], daemon: daemon)
        #expect(bind.status == 0, "\(bind)")
        #expect(bind.stdout.contains("room.f (sources room.temp)"), "\(bind)")
        #expect(bind.stdout.contains("room.f = 70.7\n"), "\(bind)")
        #expect(bind.stderr.isEmpty, "\(bind)")

        let waiting = try Propctl.run(["bind", "later.x", "absent.key.map { $0 + 1 }"], daemon: daemon)
        #expect(waiting.status == 0, "\(waiting)")
        #expect(waiting.stdout.contains("later.x has no value yet"), "\(waiting)")

        let json = try Propctl.run(["--json", "bind", "room.g", "room.temp.map { $0 + 1 }"], daemon: daemon)
        #expect(try json.json["property"]?["value"] == .double(22.5), "\(json)")
    }

    @Test func bindReportsTheErrorStateItLandedIn() throws {
        _ = try Propctl.run(["set", "disk.size", "0", "disk.used", "5"], daemon: daemon)
        let bind = try Propctl.run(
            ["bind", "disk.ratio", "combineLatest(disk.used, disk.size).map { u, s in u / s }"], daemon: daemon)
        #expect(bind.status == 0, "\(bind)")
        #expect(bind.stderr.contains("disk.ratio is in an evaluation error: division by zero"), "\(bind)")
    }

    @Test func getOfADerivedKeyInErrorPrintsTheKeptValueAndExitsFour() throws {
        _ = try Propctl.run(["set", "disk.size", "10", "disk.used", "5"], daemon: daemon)
        _ = try Propctl.run(["bind", "disk.ratio", "combineLatest(disk.used, disk.size).map { u, s in u / s }"], daemon: daemon)
        #expect(try Propctl.run(["get", "disk.ratio"], daemon: daemon).stdout == "0.5\n")
        _ = try Propctl.run(["set", "disk.size", "0"], daemon: daemon)

        let get = try Propctl.run(["get", "disk.ratio"], daemon: daemon)
        #expect(get.status == 4, "\(get)")
        #expect(get.stdout == "0.5\n", "\(get)")
        #expect(get.stderr.contains("disk.ratio is in an evaluation error: division by zero"), "\(get)")
        #expect(get.stderr.contains("the value shown is the last one it had"), "\(get)")

        let several = try Propctl.run(["get", "disk.used", "disk.ratio"], daemon: daemon)
        #expect(several.status == 4, "\(several)")
        #expect(several.stdout.contains("disk.ratio  0.5"), "\(several)")

        let json = try Propctl.run(["--json", "get", "disk.ratio"], daemon: daemon)
        #expect(json.status == 4, "\(json)")
        #expect(try item(json.json["properties"], 0)?["error"] != nil, "\(json)")

        // A successful evaluation clears it: exit 0 again.
        _ = try Propctl.run(["set", "disk.size", "20"], daemon: daemon)
        let cleared = try Propctl.run(["get", "disk.ratio"], daemon: daemon)
        #expect(cleared.status == 0 && cleared.stdout == "0.25\n", "\(cleared)")
    }

    @Test func unbindOfAPlainKeySaysItHasNoBinding() throws {
        _ = try Propctl.run(["set", "room.temp", "21"], daemon: daemon)
        let plain = try Propctl.run(["unbind", "room.temp"], daemon: daemon)
        #expect(plain.status == 1, "\(plain)")
        #expect(plain.stderr.contains("room.temp has no binding: it is a plain property"), "\(plain)")
        #expect(!plain.stderr.contains("no such key"), "\(plain)")
        let missing = try Propctl.run(["unbind", "nothing.here"], daemon: daemon)
        #expect(missing.status == 1, "\(missing)")
        #expect(missing.stderr.contains("no such key nothing.here"), "\(missing)")
    }

    @Test func sinceBeyondTheHeadIsAPlainSentence() throws {
        _ = try Propctl.run(["set", "a", "1", "b", "2"], daemon: daemon)
        let watch = try Propctl.run(["watch", "**", "--since", "500"], daemon: daemon)
        #expect(watch.status == 1, "\(watch)")
        #expect(watch.stderr.contains("--since 500 is beyond the newest revision, 1: no change after it exists yet"), "\(watch)")
        #expect(!watch.stderr.contains("{"), "no JSON in the sentence: \(watch)")
    }
}

/// Contract 6.4's protocol additions through propctl: `del --pattern` and `get --rev`.
@Suite struct PatternDeleteAndPastReadTests {
    let daemon: PropdProcess

    init() throws { daemon = try PropdProcess() }

    func keys() throws -> [String] {
        let list = try Propctl.run(["--json", "list"], daemon: daemon)
        guard case .array(let properties)? = try list.json["properties"] else { return [] }
        return properties.compactMap { if case .string(let k)? = $0["key"] { k } else { nil } }
    }

    @Test func deleteByPatternIsOneRevisionAndSkipsDerivedKeys() throws {
        _ = try Propctl.run(["set", "room.a", "1", "room.b.c", "2", "roomy", "3", "other", "4"], daemon: daemon)  // 1
        _ = try Propctl.run(["bind", "room.derived", "other.map { $0 + 1 }"], daemon: daemon)  // 2
        let del = try Propctl.run(["--json", "del", "--pattern", "room.**", "other"], daemon: daemon)
        #expect(del.status == 0, "\(del)")
        #expect(try del.json["revision"] == .integer(3), "\(del)")
        #expect(try keys() == ["room.derived", "roomy"])
        // Both changes carry the same revision.
        let history = try Propctl.run(["--json", "history", "room.b.c"], daemon: daemon)
        #expect(try item(history.json["entries"], 0)?["revision"] == .integer(3), "\(history)")
    }

    @Test func aPatternMatchingNothingConsumesNoRevision() throws {
        _ = try Propctl.run(["set", "a", "1"], daemon: daemon)
        let del = try Propctl.run(["--json", "del", "--pattern", "nothing.**"], daemon: daemon)
        #expect(del.status == 0, "\(del)")
        #expect(try del.json["revision"] == .integer(1), "\(del)")
        #expect(try Propctl.run(["set", "b", "2"], daemon: daemon).stdout == "2\n")
        let bad = try Propctl.run(["del", "--pattern", "a.**.b"], daemon: daemon)
        #expect(bad.status == 1 && bad.stderr.contains("InvalidPattern"), "\(bad)")
    }

    @Test func getAtARevisionReadsHistory() throws {
        _ = try Propctl.run(["set", "t", "1"], daemon: daemon)  // 1
        _ = try Propctl.run(["set", "t", "2", "u", "x"], daemon: daemon)  // 2
        _ = try Propctl.run(["del", "u"], daemon: daemon)  // 3
        _ = try Propctl.run(["set", "t", "3"], daemon: daemon)  // 4
        #expect(try Propctl.run(["get", "t", "--rev", "1"], daemon: daemon).stdout == "1\n")
        #expect(try Propctl.run(["get", "t", "--rev", "3"], daemon: daemon).stdout == "2\n")
        #expect(try Propctl.run(["get", "t", "--rev", "4"], daemon: daemon).stdout == "3\n")
        let json = try Propctl.run(["--json", "get", "t", "u", "--rev", "2"], daemon: daemon)
        #expect(json.status == 0, "\(json)")
        #expect(try item(json.json["properties"], 0)?["revision"] == .integer(2))
        #expect(try item(json.json["properties"], 0)?["created"] == .integer(1))
        #expect(try item(json.json["properties"], 1)?["value"] == .string("x"))
        // Deleted by then, or not yet created: NoSuchKey.
        let deleted = try Propctl.run(["get", "u", "--rev", "3"], daemon: daemon)
        #expect(deleted.status == 1 && deleted.stderr.contains("no such key u"), "\(deleted)")
        let unborn = try Propctl.run(["get", "u", "--rev", "1"], daemon: daemon)
        #expect(unborn.status == 1 && unborn.stderr.contains("no such key u"), "\(unborn)")
        let ahead = try Propctl.run(["get", "t", "--rev", "9"], daemon: daemon)
        #expect(ahead.status == 1 && ahead.stderr.contains("revision 9 is beyond the newest revision 4"), "\(ahead)")
    }

    /// A revision history no longer reaches is RevisionCompacted. Compaction
    /// trims a little with each commit, so the test writes until it shows.
    @Test func getAtACompactedRevisionIsRevisionCompacted() throws {
        let small = try PropdProcess(extraArguments: ["--history-per-key", "1"])
        _ = try Propctl.run(["set", "t", "1"], daemon: small)
        #expect(try Propctl.run(["get", "t", "--rev", "1"], daemon: small).stdout == "1\n")
        let deadline = ContinuousClock.now + .seconds(60)
        var last: PropctlResult?
        var value = 2
        while ContinuousClock.now < deadline {
            _ = try Propctl.run(["set", "t", String(value), "other", String(value)], daemon: small)
            value += 1
            let old = try Propctl.run(["get", "t", "--rev", "1"], daemon: small)
            last = old
            if old.status != 0 { break }
        }
        let refused = try #require(last)
        #expect(refused.status == 1 && refused.stderr.contains("RevisionCompacted"), "\(refused)")
        // The newest revision stays readable.
        #expect(try Propctl.run(["get", "t", "--rev", String(value - 1)], daemon: small).stdout == "\(value - 1)\n")
    }
}

/// The element at `index` of a JSON array.
private func item(_ value: JSONValue?, _ index: Int) -> JSONValue? {
    guard case .array(let items)? = value, index < items.count else { return nil }
    return items[index]
}
