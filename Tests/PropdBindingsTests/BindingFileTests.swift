import PropdBindings
import PropdCore
import Testing

@Suite("Binding files (*.prop)")
struct BindingFileTests {
    @Test("key = expression lines, multi-line expressions and comments")
    func parse() throws {
        let text = """
            # derived properties of the living room
            room.f = room.temp.map { $0 * 9 / 5 + 32 }   # Fahrenheit

            ui.login.enabled = combineLatest(form.account, form.password)
              .map { a, p in
                len(a) > 5 && len(p) > 5
              }
            label = room.f.map { x in "#" + string(x) }   # a '#' in a string stays
            flag =
                a.map { $0 == 1 }
            """
        let entries = try BindingFile.parse(text, fileName: "room.prop")
        #expect(entries.map(\.key.rawValue) == ["room.f", "ui.login.enabled", "label", "flag"])
        #expect(entries[0].expression == "room.temp.map { $0 * 9 / 5 + 32 }")
        #expect(entries[1].expression == "combineLatest(form.account, form.password)\n  .map { a, p in\n    len(a) > 5 && len(p) > 5\n  }")
        #expect(entries[1].line == 4 && entries[1].column == 1)
        #expect(entries[2].expression == ##"room.f.map { x in "#" + string(x) }"##)
        #expect(entries[3].expression == "a.map { $0 == 1 }")
    }

    @Test("errors carry file:line:column", arguments: [
        ("a = b.map { $0 + }", 1, 18, "expected a value"),
        ("a = b\n  .map { x in\n    x + }\n", 3, 9, "expected a value"),
        ("  x = combineLatest(a, b", 1, 25, "expected ')' after the arguments of combineLatest"),
        ("a = b\nb c d\n", 2, 1, "expected '.' and an operator"),
        ("just words\n", 1, 1, "expected 'key = expression'"),
        ("a..b = c\n", 1, 1, "'a..b' is not a valid key"),
        ("a = \n# nothing\n", 1, 4, "expected an expression after 'a ='"),
        ("a = b\na = c\n", 2, 1, "'a' is bound twice in this file (first at line 1)"),
    ] as [(String, Int, Int, String)])
    func errors(text: String, line: Int, column: Int, message: String) throws {
        do {
            _ = try BindingFile.parse(text, fileName: "f.prop")
            Issue.record("\(text.debugDescription) should fail")
        } catch {
            #expect(error.file == "f.prop")
            #expect(error.line == line && error.column == column, "\(error)")
            #expect(error.message.contains(message), "\(error)")
            #expect(error.description.hasPrefix("f.prop:\(line):\(column): "))
        }
    }

    @Test("a file with CRLF line ends and an empty file")
    func lineEnds() throws {
        #expect(try BindingFile.parse("a = b.map { $0 }\r\nc = d\r\n", fileName: "w.prop").map(\.key.rawValue) == ["a", "c"])
        #expect(try BindingFile.parse("", fileName: "e.prop").isEmpty)
        #expect(try BindingFile.parse("# only a comment\n\n", fileName: "e.prop").isEmpty)
    }
}
