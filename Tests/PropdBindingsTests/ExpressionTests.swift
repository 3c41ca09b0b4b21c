import PropdBindings
import PropdCore
import Testing

@Suite("Expressions and functions")
struct ExpressionTests {
    @Test("arithmetic: real division, whole results are integers", arguments: [
        ("7 / 2", JSONValue.double(3.5)), ("6 / 2", .integer(3)), ("21 * 2", .integer(42)), ("7 % 3", .integer(1)),
        ("-7 % 3", .integer(-1)), ("7.5 % 2", .double(1.5)), ("0.1 + 0.2", .double(0.30000000000000004)),
        ("1.5 + 1.5", .integer(3)), ("2 - 5", .integer(-3)), ("-(3)", .integer(-3)), ("1e3", .integer(1000)),
        ("9007199254740993 + 0", .integer(9_007_199_254_740_993)),
    ])
    func arithmetic(expression: String, expected: JSONValue) throws {
        let result = try evaluate("x + \(expression) - x", on: 0)
        #expect(result.value == expected)
        if case .integer = expected { #expect(result.value.map { if case .integer = $0 { true } else { false } } == true) }
    }

    @Test("operators on values", arguments: [
        (#"x + "b""#, JSONValue.string("a"), JSONValue.string("ab")),
        ("x + [2]", [1], [1, 2]),
        ("x == 1.0", 1, true), ("x != 1", 1, false), (#"x < "b""#, "a", true), ("x >= 2", 2, true),
        ("x > 1 && x < 3", 2, true), ("x < 1 || x > 3", 2, false), ("!x", true, false),
        (#"x ? "yes" : "no""#, false, "no"),
        ("x ?? 5", .null, 5), ("x.a ?? 5", ["b": 1], 5), ("x[3] ?? 0", [1], 0), ("x.a ?? 5", ["a": 2], 2),
        ("x.a.b", ["a": ["b": 7]], 7), ("x[1]", [10, 20], 20), (#"x["k"]"#, ["k": true], true),
        ("{\"v\": x, \"w\": [x, 1]}", 3, ["v": 3, "w": [3, 1]]),
        ("x == [1, {\"a\": 2}]", [1, ["a": 2.0]], true),
        ("false && x.missing", 1, false), ("true || x / 0 > 1", 1, true),
    ] as [(String, JSONValue, JSONValue)])
    func operators(body: String, input: JSONValue, expected: JSONValue) throws {
        let result = try evaluate(body, on: input)
        #expect(result.error == nil, "\(result.error ?? "")")
        #expect(result.value == expected)
    }

    @Test("functions", arguments: [
        ("len(x)", JSONValue.string("héllo"), JSONValue.integer(5)), ("len(x)", [1, 2, 3], 3), ("len(x)", ["a": 1], 1),
        ("abs(x)", -4, 4), ("abs(x)", -2.5, 2.5),
        ("min(x, 3, 7)", 5, 3), ("max(x, 3, 7)", 5, 7), ("max(x)", [4, 9, 2], 9), ("min(x, \"b\")", "a", "a"),
        ("round(x)", 2.5, 3), ("round(x)", -2.5, -3), ("round(x, 2)", 3.14159, 3.14), ("floor(x)", -1.5, -2),
        ("ceil(x)", 1.2, 2), ("lower(x)", "AbC", "abc"), ("upper(x)", "AbC", "ABC"),
        (#"contains(x, "ell")"#, "hello", true), ("contains(x, 2)", [1, 2], true), (#"contains(x, "k")"#, ["k": 1], true),
        (#"contains(x, "z")"#, "hello", false),
        ("string(x)", 42, "42"), ("string(x)", ["a": [1, true]], #"{"a":[1,true]}"#), ("string(x)", "s", "s"),
        ("string(x)", .null, "null"),
        ("number(x)", " 42 ", 42), ("number(x)", "2.5", 2.5), ("number(x)", true, 1), ("number(x)", 7, 7),
    ] as [(String, JSONValue, JSONValue)])
    func functions(body: String, input: JSONValue, expected: JSONValue) throws {
        let result = try evaluate(body, on: input)
        #expect(result.error == nil, "\(result.error ?? "")")
        #expect(result.value == expected)
    }

    @Test("run-time errors name the problem and its position", arguments: [
        ("10 / x", JSONValue.integer(0), "division by zero at 1:18"),
        ("x % 0", 5, "remainder of a division by zero"),
        ("x.name", ["other": 1], "missing field 'name' at 1:16"),
        ("x.name", 5, "cannot read field 'name' of a number"),
        ("x[5]", [1], "index 5 is out of range for an array of 1 elements"),
        ("x * 2", "a", "'*' needs numbers, got string and number"),
        ("x + 1", "a", "cannot add string and number; use string(x) to join a value to a string"),
        ("x * 1e308", 10, "the result of '*' is not a finite number"),
        ("len(x)", 5, "len expects a string, array or object, got number"),
        ("number(x)", "abc", "cannot convert the string \"abc\" to a number"),
        ("x && true", 1, "'&&' needs bools, got number on its left"),
        ("x < 1", "a", "'<' compares two numbers or two strings, got string and number"),
        ("x ? 1 : 2", .null, "the condition of '? :' must be a bool, got null"),
        ("max(x)", [1, "a"], "'>' compares two numbers or two strings"),
    ] as [(String, JSONValue, String)])
    func runtimeErrors(body: String, input: JSONValue, message: String) throws {
        let result = try evaluate(body, on: input)
        #expect(result.value == nil)
        #expect(result.error?.contains(message) == true, "\(result.error ?? "no error")")
    }

    @Test("closure parameters after combineLatest: named, $n, or the whole list")
    func parameters() throws {
        let store = Store()
        store.set([("a", 2), ("b", 3)])
        try store.bind("named", "combineLatest(a, b).map { x, y in x * y }")
        try store.bind("dollar", "combineLatest(a, b).map { $0 - $1 }")
        try store.bind("whole", "combineLatest(a, b).map { pair in pair[1] }")
        try store.bind("ignored", "combineLatest(a, b).map { _, y in y }")
        try store.bind("constant", "a.map { 42 }")
        #expect(store.value("named") == 6)
        #expect(store.value("dollar") == -1)
        #expect(store.value("whole") == 3)
        #expect(store.value("ignored") == 3)
        #expect(store.value("constant") == 42)
    }
}
