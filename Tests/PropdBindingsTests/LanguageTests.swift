import PropdBindings
import PropdCore
import Testing

@Suite("The language: sources, keys and operators")
struct LanguageTests {
    private func sources(_ expression: String) throws -> [String] {
        let engine = BindingEngine(clock: ManualBindingClock())
        return try engine.validate(key: Store.key("target"), expression: expression).map(\.rawValue)
    }

    @Test("a key followed by an operator call is the key then the operator")
    func keyThenOperator() throws {
        #expect(try sources("room.temp.map { $0 * 9 / 5 + 32 }") == ["room.temp"])
        #expect(try sources("room.temp .map { $0 }") == ["room.temp"])
        #expect(try sources("room.temp\n  .map { $0 }\n  .filter { $0 > 1 }") == ["room.temp"])
    }

    @Test("a segment named like an operator but not called is part of the key")
    func operatorNamedSegment() throws {
        #expect(try sources("a.map") == ["a.map"])
        #expect(try sources("ui.take.b.map { $0 }") == ["ui.take.b"])
        #expect(try sources("sensor.1.level-x.map { $0 }") == ["sensor.1.level-x"])
        #expect(try sources("combineLatest") == ["combineLatest"])
        #expect(try sources("merge.x") == ["merge.x"])
    }

    @Test("nested sources and repeated keys are listed once, in order of first use")
    func nestedSources() throws {
        #expect(try sources("combineLatest(a, merge(b, a.map { $0 }), c.filter { $0 })") == ["a", "b", "c"])
    }

    @Test("comments and line breaks are allowed inside an expression")
    func comments() throws {
        #expect(try sources("a # the source\n .map { $0 + 1 } # plus one") == ["a"])
    }

    @Test("syntax errors name what was expected and where", arguments: [
        ("combineLatest(a, b", "expected ')' after the arguments of combineLatest at 1:19 (found the end of the expression)", 1, 19),
        ("a.foo { $0 }", "'foo' is not an operator", 1, 3),
        ("a.map { $0 + }", "expected a value", 1, 14),
        ("a.map $0", "expected '.' and an operator or the end of the expression", 1, 7),
        ("a.map($0)", "expected '{' to start the closure of map", 1, 6),
        ("a.map { $0 ", "expected '}' to close the closure of map", 1, 12),
        ("a.throttle(300)", "expected a duration like 300ms, 1s or 2m", 1, 12),
        ("a.throttle(3h)", "unknown unit 'h'", 1, 13),
        ("a.take(-1)", "expected a whole number of values", 1, 8),
        ("a.skip(1.5)", "expected a whole number of values", 1, 8),
        ("a..b", "'a..b' is not a valid key", 1, 1),
        ("", "expected a key, combineLatest(…) or merge(…)", 1, 1),
        ("a.map { 'x' }", "strings use double quotes", 1, 9),
        ("a.map { \"x }", "unterminated string", 1, 9),
        ("a b", "expected '.' and an operator or the end of the expression", 1, 3),
        ("a.map { 1 < 2 < 3 }", "comparisons cannot be chained", 1, 15),
        ("merge()", "expected at least one source inside merge(…)", 1, 7),
        ("a\n  .map { x in\n    x + }", "expected a value", 3, 9),
    ])
    func syntaxErrors(expression: String, message: String, line: Int, column: Int) throws {
        let error = try #require(invalid(expression))
        #expect(error.message.contains(message), "\(error.message)")
        #expect(error.line == line && error.column == column, "\(error.message)")
        #expect(error.message.contains("at \(line):\(column)"))
    }

    @Test("checking errors: names, parameters, functions and types", arguments: [
        ("a.map { x in y }", "unknown name 'y'; inside this closure the only names are its parameters (x)"),
        ("a.map { b + 1 }", "unknown name 'b'; this closure names no parameters"),
        ("a.map { x in $0 }", "$0 cannot be used in a closure that names its parameters"),
        ("a.map { $1 }", "$1 is out of range"),
        ("combineLatest(a, b).map { $2 }", "$2 is out of range"),
        ("combineLatest(a, b).map { x, y, z in x }", "after combineLatest of 2 sources, the closure of map takes 2 parameters"),
        ("a.map { x, y in x }", "the closure of map takes 1 value parameter, got 2"),
        ("a.scan(0) { acc in acc }", "takes the accumulator and 1 value parameter, got 0"),
        ("a.map { x, x in x }", "'x' is used twice"),
        ("a.map { len(1, 2) }", "len takes 1 argument, got 2"),
        ("a.map { foo(1) }", "unknown function 'foo'"),
        ("a.map { key(\"x\") }", "key(…) can only be used in the closure of flatMap"),
        ("a.map { \"a\" * 2 }", "the left side of '*' must be a number, but it is a string"),
        ("a.map { $0 + \"a\" + 1 }", "cannot add a string and a number"),
        ("a.map { !5 }", "the operand of '!' must be a bool"),
        ("a.map { len(5) }", "the argument of len must be a string or an array or an object"),
        ("a.map { 1 / 0 }", "division by zero"),
        ("a.filter { $0 + 1 }", "the predicate of filter must be a bool"),
        ("a.flatMap { 5 }", "the closure of flatMap (the key to follow) must be"),
        ("a.startWith(x)", "the argument of startWith must be a constant value"),
        ("a.catchTo($0)", "the argument of catchTo must be a constant value"),
        ("a.map { 1 ? 2 : 3 }", "the condition of '? :' must be a bool"),
        ("a.map { 5.x }", "the value before '.x' must be an object"),
        ("a.map { \"s\" < 1 }", "'<' compares two numbers or two strings"),
        ("a.throttle(0ms)", "must be longer than 0ms"),
    ])
    func checkErrors(expression: String, message: String) throws {
        let error = try #require(invalid(expression), "\(expression) should be refused")
        #expect(error.message.contains(message), "\(error.message)")
        #expect(error.line >= 1 && error.column >= 1)
    }

    @Test("deep nesting is refused with an error, never a stack overflow", arguments: [
        String(repeating: "(", count: 10_000) + "1" + String(repeating: ")", count: 10_000),
        String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000),
        String(repeating: "!", count: 10_000) + "true",
        String(repeating: "-", count: 10_000) + "1",
        Array(repeating: "1", count: 10_000).joined(separator: " + "),
        Array(repeating: "1", count: 10_000).joined(separator: " ?? "),
        String(repeating: "c ? ", count: 10_000) + "1" + String(repeating: " : 2", count: 10_000),
        String(repeating: "{\"a\": ", count: 10_000) + "1" + String(repeating: "}", count: 10_000),
        String(repeating: "x.", count: 10_000) + "y",
    ])
    func deepExpressionsRefused(body: String) throws {
        let error = try #require(invalid("a.map { c in \(body) }"))
        #expect(error.message.contains("nested too deeply") || error.message.contains("longer than"), "\(error.message.prefix(200))")
    }

    @Test("deeply nested sources and very long chains are refused")
    func deepStreamsRefused() throws {
        let nested = String(repeating: "merge(", count: 5_000) + "a" + String(repeating: ")", count: 5_000)
        #expect(try #require(invalid(nested)).message.contains("nested too deeply"))
        let chain = "a" + String(repeating: ".distinctUntilChanged()", count: 300)
        #expect(try #require(invalid(chain)).message.contains("more than 256 operators"))
        let huge = "a.map { \"" + String(repeating: "x", count: 70_000) + "\" }"
        #expect(try #require(invalid(huge)).message.contains("longer than 65536 bytes"))
    }

    @Test("a valid binding may name keys that do not exist yet")
    func missingKeysAreFine() throws {
        let store = Store()
        let bound = try store.bind("x", "nothing.here.map { $0 }")
        #expect(bound.changes.isEmpty)
        #expect(store.engine.isDerived(Store.key("x")))
    }

    @Test("durations: ms, s and m")
    func durations() throws {
        let engine = BindingEngine(clock: ManualBindingClock())
        for (expression, label) in [("a.throttle(300ms)", "throttle(300ms)"), ("a.throttle(1.5s)", "throttle(1500ms)"),
            ("a.throttle(2m)", "throttle(120000ms)")]
        {
            _ = try engine.declare(key: Store.key("t"), expression: expression) { _ in nil }
            #expect(engine.binding(of: Store.key("t"))?.operators == [label])
        }
    }
}
