/// The operators of a binding expression, read roughly from its text: the
/// source combinator (`combineLatest`, `merge`) and each `.operator(...)` or
/// `.operator { ... }` at the top level. Closure bodies and arguments are
/// skipped, so `x.map { $0.a }` yields `map`, not `a`. Good enough to label
/// an edge; the daemon's parser is the authority on what an expression means.
enum OperatorChain {
    static func of(_ expression: String) -> [String] {
        let chars = Array(expression)
        var operators: [String] = []
        var i = 0
        var depth = 0
        // A leading combinator: combineLatest(...) or merge(...).
        let head = identifier(in: chars, from: skipBlanks(chars, 0))
        if ["combineLatest", "merge"].contains(head.name), nextNonBlank(chars, head.end) == "(" {
            operators.append(head.name)
        }
        while i < chars.count {
            let c = chars[i]
            switch c {
            case "\"":
                i = stringEnd(chars, from: i)
                continue
            case "(", "[", "{": depth += 1
            case ")", "]", "}": depth -= 1
            case "." where depth == 0:
                let word = identifier(in: chars, from: i + 1)
                if !word.name.isEmpty, let next = nextNonBlank(chars, word.end), next == "(" || next == "{" {
                    operators.append(word.name)
                    i = word.end
                    continue
                }
            default: break
            }
            i += 1
        }
        return operators
    }

    /// The keys named by `.takeUntil(KEY)` and nowhere else in `expression`
    /// (outside string literals): stop signals, whose values the binding
    /// never reads. Read as roughly as the chain.
    static func stopSignals(of expression: String) -> Set<String> {
        let chars = Array(expression)
        var named: [String: Int] = [:]
        var untilCount: [String: Int] = [:]
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "\"" {
                i = stringEnd(chars, from: i)
                continue
            }
            guard isKeyCharacter(c), i == 0 || !isKeyCharacter(chars[i - 1]) else {
                i += 1
                continue
            }
            var end = i
            while end < chars.count, isKeyCharacter(chars[end]) || chars[end] == "." { end += 1 }
            var word = String(chars[i..<end])
            let isTakeUntil = (word == "takeUntil" || word.hasSuffix(".takeUntil")) && nextNonBlank(chars, end) == "("
            if isTakeUntil { word = String(word.dropLast("takeUntil".count)) }
            // `a.b.map` names the key `a.b`: every prefix up to an operator counts as named.
            var prefix = ""
            for segment in word.split(separator: ".") {
                prefix = prefix.isEmpty ? String(segment) : prefix + "." + segment
                named[prefix, default: 0] += 1
            }
            if isTakeUntil {
                let start = skipBlanks(chars, (skipBlanks(chars, end)) + 1)
                var keyEnd = start
                while keyEnd < chars.count, isKeyCharacter(chars[keyEnd]) || chars[keyEnd] == "." { keyEnd += 1 }
                let key = String(chars[start..<keyEnd])
                untilCount[key, default: 0] += 1
                named[key, default: 0] += 1
                i = keyEnd
                continue
            }
            i = end
        }
        return Set(untilCount.filter { named[$0.key] == $0.value }.keys)
    }

    /// The index after the string literal that opens at `start` (a `"`),
    /// escapes skipped.
    private static func stringEnd(_ chars: [Character], from start: Int) -> Int {
        var i = start + 1
        while i < chars.count {
            if chars[i] == "\\" { i += 2; continue }
            if chars[i] == "\"" { return i + 1 }
            i += 1
        }
        return chars.count
    }

    private static func isKeyCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "-")
    }

    private static func identifier(in chars: [Character], from start: Int) -> (name: String, end: Int) {
        var end = start
        while end < chars.count, chars[end].isASCII, chars[end].isLetter || chars[end].isNumber || chars[end] == "_" {
            end += 1
        }
        return (String(chars[start..<end]), end)
    }

    private static func skipBlanks(_ chars: [Character], _ start: Int) -> Int {
        var i = start
        while i < chars.count, chars[i].isBlank { i += 1 }
        return i
    }

    private static func nextNonBlank(_ chars: [Character], _ start: Int) -> Character? {
        let i = skipBlanks(chars, start)
        return i < chars.count ? chars[i] : nil
    }
}
