import PropdCore
import Testing

/// The keys of a command, and which keys are a command's kept ones.
@Suite struct CommandKeysTests {
    @Test func aCommandHasThreeKeys() throws {
        let keys = try CommandKeys(Key("login.submit"))
        #expect(keys.enabled.rawValue == "login.submit.enabled")
        #expect(keys.executing.rawValue == "login.submit.executing")
        #expect(keys.error.rawValue == "login.submit.error")
    }

    @Test func aNameWithoutRoomForTheSuffixIsRefused() throws {
        #expect(throws: KeySyntaxError.self) { try CommandKeys(Key(String(repeating: "a", count: 250))) }
        #expect(throws: KeySyntaxError.self) { try CommandKeys(Key(Array(repeating: "s", count: 32).joined(separator: "."))) }
        _ = try CommandKeys(Key(Array(repeating: "s", count: 31).joined(separator: ".")))
    }

    @Test func keptKeysNameTheirCommand() throws {
        #expect(CommandKeys.command(keeping: try Key("login.submit.executing"))?.rawValue == "login.submit")
        #expect(CommandKeys.command(keeping: try Key("login.submit.error"))?.rawValue == "login.submit")
        // enabled is the users' key; other suffixes and one-segment keys are nobody's.
        #expect(CommandKeys.command(keeping: try Key("login.submit.enabled")) == nil)
        #expect(CommandKeys.command(keeping: try Key("login.submit.errors")) == nil)
        #expect(CommandKeys.command(keeping: try Key("executing")) == nil)
    }
}
