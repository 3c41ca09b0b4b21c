import PropdBindings
import PropdCore
import Testing

/// A RAC user's operator that propd does not have is refused with advice,
/// pointing at the name, never with a bare "expected an operator".
@Suite("ReactiveCocoa names propd does not have")
struct RACNameTests {
    @Test("switchToLatest names flatMap { x in key(…) }, at the name")
    func switchToLatest() throws {
        let refusal = try #require(invalid(#"settings.profile.map { "profiles." + $0 }.switchToLatest()"#))
        #expect(refusal.message.contains("flatMap { x in key(…) }"), "\(refusal.message)")
        #expect(refusal.line == 1)
        #expect(refusal.column == 43)
        #expect(refusal.message.hasSuffix("at 1:43"))
    }

    @Test("switchToLatest right after a key, with or without parentheses after an operator")
    func switchToLatestPlacements() throws {
        let afterKey = try #require(invalid("names.switchToLatest()"))
        #expect(afterKey.message.contains("flatMap { x in key(…) }"), "\(afterKey.message)")
        #expect(afterKey.column == 7)
        let bare = try #require(invalid("names.map { $0 }\n  .switchToLatest"))
        #expect(bare.message.contains("flatMap { x in key(…) }"), "\(bare.message)")
        #expect((bare.line, bare.column) == (2, 4))
    }

    @Test("each refused name says what to write instead or why a daemon has none", arguments: [
        ("a.then { b }", "never completes"),
        ("a.concat(b)", "merge(a, b)"),
        ("concat(a, b)", "merge(a, b)"),
        ("a.doNext { x in x }", "propctl watch --exec"),
        ("a.takeLast(2)", "History(key, limit: N)"),
        ("zip(a, b)", "combineLatest(a, b)"),
        ("a.zip(b)", "combineLatest(a, b)"),
        ("a.map { 1 / $0 }.retry(3)", "catchTo(value)"),
        ("a.catch(0)", "catchTo(value)"),
        ("a.deliverOn(main)", "no thread or scheduler"),
        ("a.replayLast()", "Subscribe sends it first"),
        ("a.replay()", "replay: N"),
        ("a.publish()", "already shared"),
        ("a.ignoreValues()", "never completes"),
        ("a.takeUntilBlock { $0 == 1 }", "takeWhile { x in !(…) }"),
        ("a.takeWhileBlock { $0 == 1 }", "takeWhile { x in … }"),
        ("a.skipUntilBlock { $0 == 1 }", "skipWhile { x in !(…) }"),
        ("a.skipWhileBlock { $0 == 1 }", "skipWhile { x in … }"),
        ("combineLatest(a, b).reduce { x, y in x }", ".map { a, b in … }"),
        ("a.subscribeNext { $0 }", "Subscribe (propctl watch)"),
        ("a.flatten()", "flatMap { x in key(…) }"),
    ])
    func advice(expression: String, advice: String) throws {
        let refusal = try #require(invalid(expression))
        #expect(refusal.message.contains("is a ReactiveCocoa operator propd does not have"), "\(refusal.message)")
        #expect(refusal.message.contains(advice), "\(refusal.message)")
    }

    @Test("the column points at the name, on whichever line it is")
    func position() throws {
        let refusal = try #require(invalid("a\n  .map { $0 }\n  .doNext { x in x }"))
        #expect((refusal.line, refusal.column) == (3, 4))
        let source = try #require(invalid("merge(a,\n zip(b, c))"))
        #expect((source.line, source.column) == (2, 2))
    }

    @Test("a key may still have a segment named like a RAC operator")
    func keysKeepTheirNames() throws {
        #expect(invalid("cmd.then.zip.map { $0 }") == nil)
        let engine = BindingEngine(clock: ManualBindingClock())
        #expect(try engine.validate(key: Store.key("t"), expression: "cmd.then") == [Store.key("cmd.then")])
    }
}
