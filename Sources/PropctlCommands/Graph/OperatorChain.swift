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
        var inString = false
        // A leading combinator: combineLatest(...) or merge(...).
        let head = identifier(in: chars, from: skipBlanks(chars, 0))
        if ["combineLatest", "merge"].contains(head.name), nextNonBlank(chars, head.end) == "(" {
            operators.append(head.name)
        }
        while i < chars.count {
            let c = chars[i]
            if inString {
                if c == "\\" { i += 2; continue }
                if c == "\"" { inString = false }
                i += 1
                continue
            }
            switch c {
            case "\"": inString = true
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
