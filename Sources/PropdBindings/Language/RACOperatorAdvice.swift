/// ReactiveCocoa operators that propd's language does not have, each with
/// what to write instead or why a daemon has no such thing. A RAC user who
/// reaches for one gets `BindingInvalid` with this advice, pointing at the name.
///
/// Most of them concern a signal's completion, threads or side effects: a
/// property has none of these (it holds a value forever; its subscribers are
/// connections; a binding only computes). The operators propd does have under
/// RAC's name (`flattenMap`, `ignore`, `takeUntil`) are real operators.
enum RACOperatorAdvice {
    /// The refusal message for `name`, or `nil` when `name` is not one of them.
    static func refusal(of name: String) -> String? {
        advice[name].map { "\(name) is a ReactiveCocoa operator propd does not have: \($0)" }
    }

    private static let followAKey = "to follow the key a value names, write flatMap { x in key(…) }"
    private static let neverCompletes = "a property never completes"

    static let advice: [String: String] = [
        "switchToLatest": "propd has no signals of signals; \(followAKey)",
        "flatten": "propd has no signals of signals; \(followAKey)",
        "then": "it waits for a signal to complete, and \(neverCompletes); read the next key directly, "
            + "or choose it with flatMap { x in key(…) }",
        "concat": "it plays one signal after another completes, and \(neverCompletes); "
            + "merge(a, b) passes the values of both as they come",
        "takeLast": "it waits for a signal to complete, and \(neverCompletes); a key's last N values are "
            + "its history: History(key, limit: N), propctl history KEY --limit N, or Subscribe with replay: N",
        "zip": "it pairs the n-th values of its sources, and a property keeps no queue of values; "
            + "combineLatest(a, b) pairs their latest values",
        "retry": "an evaluation error never ends a binding (the next successful evaluation clears it); "
            + "catchTo(value) gives a value meanwhile",
        "catch": "the fallback of a binding is a value, not a signal: write catchTo(value)",
        "doNext": "a binding only computes a value; react to changes through Subscribe "
            + "(propctl watch --exec CMD runs a command for each change)",
        "doError": "a binding only computes a value; error events reach subscribers through Subscribe "
            + "(propctl watch)",
        "doCompleted": "\(neverCompletes), and a binding only computes a value",
        "subscribeNext": "a binding derives a property; to receive its values, Subscribe (propctl watch)",
        "deliverOn": "subscribers receive events over their own connections, so there is no thread or scheduler "
            + "to choose",
        "subscribeOn": "subscribers receive events over their own connections, so there is no thread or scheduler "
            + "to choose",
        "replay": "every property already keeps its current value and history: Subscribe sends the current value "
            + "first, or the last N values with replay: N",
        "replayLast": "every property already keeps its current value: Subscribe sends it first",
        "replayLazily": "every property already keeps its current value and history: Subscribe sends the current "
            + "value first, or the last N values with replay: N",
        "publish": "a property is already shared: any number of subscribers and bindings read it",
        "multicast": "a property is already shared: any number of subscribers and bindings read it",
        "ignoreValues": "it keeps only completion and errors, and \(neverCompletes); "
            + "a key's errors reach subscribers as error events",
        "takeUntilBlock": "write takeWhile { x in !(…) } (the same predicate, negated)",
        "takeWhileBlock": "write takeWhile { x in … }",
        "skipUntilBlock": "write skipWhile { x in !(…) } (the same predicate, negated)",
        "skipWhileBlock": "write skipWhile { x in … }",
        "reduce": "after combineLatest(a, b), write .map { a, b in … } (RAC's combineLatest:reduce:)",
        "reduceEach": "after combineLatest(a, b), write .map { a, b in … }",
        "scanWithStart": "write scan(seed) { acc, x in … }",
        "aggregateWithStart": "write scan(seed) { acc, x in … } (the property holds the running result)",
        "mapReplace": "write map { _ in value }",
        "not": "write map { !$0 }",
        "and": "after combineLatest(a, b), write .map { a, b in a && b }",
        "or": "after combineLatest(a, b), write .map { a, b in a || b }",
    ]
}
