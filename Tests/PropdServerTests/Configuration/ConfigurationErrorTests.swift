import PropdServer
import Testing

/// Every kind of bad config file is refused with the place and a named problem.
@Suite struct ConfigurationErrorTests {
    let directory = FakeAccountDirectory()

    func failure(_ text: String) -> ConfigurationError? {
        #expect(throws: ConfigurationError.self) {
            try ConfigurationFile.parse(text, path: "/etc/propd/propd.conf", directory: directory)
        }
    }

    @Test func unknownTopLevelKey() {
        let error = failure("socket: /a.sock\nsokcet: /b.sock\n")
        #expect(error?.line == 2)
        #expect(error?.column == 1)
        guard case .unknownKey("sokcet", let allowed) = error?.problem else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(allowed.contains("socket"))
        #expect(error?.description.hasPrefix("/etc/propd/propd.conf:2:1: unknown key \"sokcet\"; expected one of: socket, ") == true)
    }

    @Test func unknownLimit() {
        let error = failure("limits:\n  max-conections: 4\n")
        #expect(error?.line == 2)
        #expect(error?.column == 3)
        guard case .unknownKey("max-conections", _) = error?.problem else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }

    @Test func badDurability() {
        let error = failure("# comment\ndurability: fast\n")
        #expect(error?.line == 2)
        #expect(error?.column == 13)
        #expect(error?.problem == .invalidValue(key: "durability", value: "fast", reason: "is not a durability; expected \"full\" or \"normal\""))
        #expect(error?.description == "/etc/propd/propd.conf:2:13: durability \"fast\" is not a durability; expected \"full\" or \"normal\"")
    }

    @Test func wrongTypes() {
        let number = failure("history-per-key: \"100\"\n")
        #expect(number?.line == 1)
        #expect(number?.problem == .wrongType(key: "history-per-key", expected: "an integer", actual: "a string (\"100\")"))

        let string = failure("socket: 42\n")
        #expect(string?.problem == .wrongType(key: "socket", expected: "a string", actual: "an integer (42)"))

        let boolean = failure("durability: yes\n")
        #expect(boolean?.problem == .wrongType(key: "durability", expected: "a string", actual: "a boolean (yes; quote it to make it a string)"))

        let mapping = failure("limits: 5\n")
        #expect(mapping?.problem == .wrongType(key: "limits", expected: "a mapping of keys to values", actual: "an integer (5)"))

        let list = failure("access:\n  users: [alice]\n")
        #expect(list?.line == 2)
        #expect(list?.problem == .wrongType(key: "access", expected: "a list", actual: "a mapping"))

        let empty = failure("database:\n")
        #expect(empty?.problem == .wrongType(key: "database", expected: "a string", actual: "empty"))

        let top = failure("- socket\n")
        #expect(top?.line == 1)
        #expect(top?.problem == .wrongType(key: "the config file", expected: "a mapping of keys to values", actual: "a list"))
    }

    @Test func negativeAndOutOfRangeNumbers() {
        let negative = failure("durability: full\nhistory-per-key: -5\n")
        #expect(negative?.line == 2)
        #expect(negative?.column == 18)
        #expect(negative?.problem == .invalidValue(key: "history-per-key", value: "-5", reason: "is out of range; expected 1...10000000"))

        let zero = failure("limits:\n  max-connections: 0\n")
        #expect(zero?.line == 2)
        #expect(zero?.problem == .invalidValue(key: "limits.max-connections", value: "0", reason: "is out of range; expected 1...1000000"))

        // A write's keys (65,536 at most) and what it derives share one revision's 262,144 changes.
        let derived = failure("limits:\n  max-derived-per-revision: 196609\n")
        #expect(derived?.problem == .invalidValue(key: "limits.max-derived-per-revision", value: "196609", reason: "is out of range; expected 1...196608"))
        #expect(throws: Never.self) {
            try ConfigurationFile.parse("limits:\n  max-derived-per-revision: 196608\n", path: "/etc/propd/propd.conf", directory: directory)
        }

        let tiny = failure("limits:\n  max-message-bytes: 100\n")
        #expect(tiny?.problem == .invalidValue(key: "limits.max-message-bytes", value: "100", reason: "is out of range; expected 4096...1073741824"))

        let octal = failure("history-per-key: 0x10\n")
        #expect(octal?.problem == .invalidValue(key: "history-per-key", value: "0x10", reason: "is not a decimal integer in range"))

        let fraction = failure("history-per-key: 1.5\n")
        #expect(fraction?.problem == .wrongType(key: "history-per-key", expected: "an integer", actual: "a number with a fraction (1.5)"))
    }

    @Test func relativeAndOverlongPaths() {
        let relative = failure("database: state/propd.db\n")
        #expect(relative?.problem == .invalidValue(key: "database", value: "state/propd.db", reason: "is not an absolute path"))
        let long = "/" + String(repeating: "x", count: 110)
        let overlong = failure("socket: \(long)\n")
        #expect(overlong?.problem == .invalidValue(key: "socket", value: long, reason: "is 111 bytes; a Unix socket path holds at most 107"))
    }

    @Test func badLogLevel() {
        let error = failure("log-level: verbose\n")
        #expect(error?.line == 1)
        guard case .invalidValue(key: "log-level", value: "verbose", _) = error?.problem else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }

    @Test func invalidPatternInAccessRule() {
        let text = """
            access:
              - users: [alice]
                read: ["ui.**", "room.**.temp"]
            """
        let error = failure(text)
        #expect(error?.line == 3)
        #expect(error?.column == 21)
        #expect(error?.problem == .invalidPattern(pattern: "room.**.temp", reason: "segment 2 is '**', which may only be the last segment"))
    }

    @Test func unknownUserAndGroupNames() {
        let user = failure("access:\n  - users: [alice, mallory]\n    read: [\"**\"]\n")
        #expect(user?.line == 2)
        #expect(user?.column == 20)
        #expect(user?.problem == .unknownUser("mallory"))
        #expect(user?.description == "/etc/propd/propd.conf:2:20: unknown user \"mallory\"")

        let group = failure("access:\n  - groups: [wheel]\n    read: [\"**\"]\n")
        #expect(group?.line == 2)
        #expect(group?.problem == .unknownGroup("wheel"))
    }

    @Test func badIdsAndIncompleteRules() {
        let negative = failure("access:\n  - users: [-1]\n    read: [\"**\"]\n")
        #expect(negative?.problem == .invalidValue(key: "access[0].users[0]", value: "-1", reason: "is not a valid user id"))

        let noSubject = failure("access:\n  - read: [\"**\"]\n")
        #expect(noSubject?.line == 2)
        #expect(noSubject?.problem == .missingKey("users or groups (a non-empty list)", in: "access[0]"))

        let noGrant = failure("access:\n  - users: [alice]\n")
        #expect(noGrant?.problem == .missingKey("read or write", in: "access[0]"))

        let unknown = failure("access:\n  - users: [alice]\n    read: [\"a\"]\n    deny: [\"b\"]\n")
        #expect(unknown?.line == 4)
        guard case .unknownKey("deny", allowed: ["users", "groups", "read", "write"]) = unknown?.problem else {
            Issue.record("got \(String(describing: unknown))")
            return
        }
    }

    @Test func duplicateKeys() {
        let error = failure("socket: /a.sock\nsocket: /b.sock\n")
        #expect(error?.line != nil)
        #expect(error?.problem == .duplicateKey("socket"))
    }

    @Test func malformedYAMLHasLineAndColumn() {
        let error = failure("socket: /a.sock\nlimits:\n  max-connections: [1, 2\n")
        guard case .syntax = error?.problem else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(error?.line == 4)
        #expect(error?.column != nil)

        let tab = failure("limits:\n\tmax-connections: 1\n")
        guard case .syntax = tab?.problem else {
            Issue.record("got \(String(describing: tab))")
            return
        }
        #expect(tab?.line == 2)
    }

    @Test func aFailingFileDoesNotHalfApply() throws {
        // The first key is valid, the second is not: resolution throws, so no
        // configuration (with the first key applied) ever exists.
        let file = ConfigurationText(path: "/c.conf", text: "socket: /ok.sock\ndurability: fast\n")
        #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration.resolve(environment: ["HOME": "/h"], uid: 1000, flags: DaemonFlags(), file: file, directory: directory)
        }
    }

    @Test func emptyAndCommentOnlyFilesAreDefaults() throws {
        for text in ["", "# nothing here\n", "---\n"] {
            let file = try ConfigurationFile.parse(text, path: "/c.conf", directory: directory)
            #expect(file.socket == nil)
            #expect(file.access.isEmpty)
        }
    }
}
