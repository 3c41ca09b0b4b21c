#if canImport(Glibc)
import Glibc
#endif
@testable import PropdServer
import Logging
import Synchronization
import Testing

/// Collects lines instead of writing them to stderr.
final class CapturedLines: LogOutput {
    private let lines = Mutex<[String]>([])
    func write(line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

@Suite struct SyslogLogHandlerTests {
    func logger(timestamps: Bool = false, level: Logger.Level = .trace) -> (Logger, CapturedLines) {
        let output = CapturedLines()
        let handler = SyslogLogHandler(
            label: "propd", level: level, timestamps: timestamps, output: output, metadataProvider: nil,
            clock: { (1_795_395_685, 120_999_999) })
        return (Logger(label: "propd", factory: { _ in handler }), output)
    }

    @Test func priorityPrefixPerLevel() {
        let (log, output) = logger()
        log.trace("t")
        log.debug("d")
        log.info("i")
        log.notice("n")
        log.warning("w")
        log.error("e")
        log.critical("c")
        #expect(output.all == ["<7>propd: t\n", "<7>propd: d\n", "<6>propd: i\n", "<5>propd: n\n", "<4>propd: w\n", "<3>propd: e\n", "<2>propd: c\n"])
    }

    @Test func levelFilters() {
        let (log, output) = logger(level: .warning)
        log.info("hidden")
        log.warning("shown")
        #expect(output.all == ["<4>propd: shown\n"])
    }

    @Test func metadataAsSortedKeyValuePairs() {
        var (log, output) = logger()
        log[metadataKey: "connection"] = "7"
        log.info("set", metadata: ["revision": "42", "key": "room.temp", "note": "two words", "q": "say \"hi\"", "empty": ""])
        #expect(output.all == [
            "<6>propd: set connection=7 empty=\"\" key=room.temp note=\"two words\" q=\"say \\\"hi\\\"\" revision=42\n"
        ])
    }

    @Test func nestedMetadataAndErrors() {
        let (log, output) = logger()
        log.error("failed", metadata: ["keys": ["a", "b"], "limits": ["max": "3"]])
        #expect(output.all == ["<3>propd: failed keys=\"[a, b]\" limits=\"{max=3}\"\n"])
    }

    @Test func oneMessageIsOneLine() {
        let (log, output) = logger()
        log.warning("first\nsecond\tthird", metadata: ["text": "a\nb"])
        #expect(output.all == ["<4>propd: first\\nsecond\\tthird text=\"a\\nb\"\n"])
    }

    @Test func timestampAndLevelOutsideTheJournal() {
        let (log, output) = logger(timestamps: true)
        log.notice("up")
        #expect(output.all == ["<5>2026-11-23T01:01:25.120Z notice propd: up\n"])
    }

    @Test func timestampFormatting() {
        #expect(SyslogLogHandler.timestamp(seconds: 0, nanoseconds: 5_000_000) == "1970-01-01T00:00:00.005Z")
        #expect(SyslogLogHandler.timestamp(seconds: 951_782_400, nanoseconds: 999_999_999) == "2000-02-29T00:00:00.999Z")
    }

    @Test func journalStreamDecidesTimestamps() {
        #expect(JournalStream.matches(environment: ["JOURNAL_STREAM": "8:12345"], device: 8, inode: 12345))
        #expect(!JournalStream.matches(environment: ["JOURNAL_STREAM": "8:12345"], device: 8, inode: 99))
        #expect(!JournalStream.matches(environment: [:], device: 8, inode: 12345))
        #expect(!JournalStream.matches(environment: ["JOURNAL_STREAM": "garbage"], device: 8, inode: 12345))
        // The factory turns timestamps off only when stderr is the journal's stream.
        let output = CapturedLines()
        let handler = SyslogLogHandler.factory(environment: [:], level: .info, output: output)("propd", nil)
        #expect((handler as? SyslogLogHandler)?.timestamps == true)
    }
}

@Suite struct SyslogLogHandlerMetadataTests {
    @Test func providerHandlerAndCallMetadataMergeCallWinning() {
        let output = CapturedLines()
        let provider = Logger.MetadataProvider { ["peer": "uid 1001", "conn": "1"] }
        var log = Logger(label: "propd.server") { label in
            SyslogLogHandler(label: label, level: .info, timestamps: false, output: output, metadataProvider: provider)
        }
        log[metadataKey: "conn"] = "2"
        log.info("call", metadata: ["conn": "3"])
        #expect(output.all == ["<6>propd.server: call conn=3 peer=\"uid 1001\"\n"])
    }
}

@Suite struct JournalStreamTests {
    /// Against the real fd 2: JOURNAL_STREAM naming its device and inode means journald.
    @Test func matchesTheRealStandardError() {
        var status = stat()
        #expect(fstat(2, &status) == 0)
        let mine = "\(status.st_dev):\(status.st_ino)"
        #expect(JournalStream.isStandardErrorJournal(environment: ["JOURNAL_STREAM": mine]))
        #expect(!JournalStream.isStandardErrorJournal(environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino &+ 1)"]))
        #expect(!JournalStream.isStandardErrorJournal(environment: [:]))
        let output = CapturedLines()
        let handler = SyslogLogHandler.factory(environment: ["JOURNAL_STREAM": mine], level: .info, output: output)("propd", nil)
        #expect((handler as? SyslogLogHandler)?.timestamps == false)
    }
}
