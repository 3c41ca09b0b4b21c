import ArgumentParser
import PropdClient
import PropdCore

/// `propctl bind KEY EXPRESSION` and `propctl bind --file FILE.prop`
struct BindCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bind",
        abstract: "Declare a derived property: KEY's value is computed by EXPRESSION.",
        discussion: """
            The daemon checks the expression (syntax, sources, cycles) before it stores \
            anything, and computes the value at once when the sources have values. bind \
            prints the revision and the sources, then the value the key landed on — or \
            that it has none yet, or the evaluation error it is in (on stderr; the \
            binding stays declared and the status is 0).

            --file declares every 'key = expression' of a .prop file (the format of \
            propd's bindings directory: expressions may span lines, # starts a comment) \
            all or nothing: if the daemon refuses one, the bindings already made are put \
            back as they were, and the error is shown at its file, line and column.

            Examples:
              propctl bind room.fahrenheit 'room.temp.map { $0 * 9 / 5 + 32 }'
              propctl bind ui.login.enabled \\
                'combineLatest(form.account, form.password).map { a, p in len(a) > 5 && len(p) > 5 }'
              propctl bind --file login.prop
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The key to derive.", valueName: "key"))
    var key: String?

    @Argument(help: ArgumentHelp("The binding expression.", valueName: "expression"))
    var expression: String?

    @Option(name: .long, help: ArgumentHelp("Declare every binding of a .prop file, all or nothing.", valueName: "file"),
        completion: .file(extensions: ["prop"]))
    var file: String?

    func validate() throws {
        if file != nil {
            guard key == nil else { throw ValidationError("Give either KEY EXPRESSION or --file FILE, not both.") }
        } else {
            guard key != nil else { throw ValidationError("Missing KEY EXPRESSION (or --file FILE).") }
            guard expression != nil else { throw ValidationError("Missing EXPRESSION for '\(key ?? "")'.") }
        }
    }

    func run() async throws {
        if let file {
            try await bindFile(file)
            return
        }
        guard let key, let expression else { return }
        let client = try await global.connect()
        let result: (revision: Revision, sources: [String])
        let landed: Property?
        do {
            result = try await client.bind(key, expression)
            // What the key landed on: read on the same connection, right after.
            landed = try? await client.get([key]).first
            await client.close()
        } catch {
            await client.close()
            var more: [String] = []
            if case .refused(.bindingInvalid(_, let line, let column)) = error {
                more = SourceExcerpt.lines(of: expression, line: line, column: column, style: Style.standardError)
            }
            throw PropctlFailure(error, socket: global.socketChoice, more: more)
        }
        if global.json {
            var reply: [String: JSONValue] = [
                "revision": .integer(result.revision.rawValue), "sources": .array(result.sources.map { .string($0) }),
            ]
            if let landed { reply["property"] = WireJSON.property(landed) }
            WireJSON.print(.object(reply))
        } else {
            let sources = result.sources.isEmpty ? "no static sources" : "sources " + result.sources.joined(separator: ", ")
            StandardStreams.out("\(result.revision)  \(key) (\(sources))\n")
            Self.printLanding(landed, key: key)
        }
    }

    /// The value a new binding landed on, or why it has none.
    static func printLanding(_ property: Property?, key: String) {
        guard let property else { return }
        if let value = property.value {
            StandardStreams.out("\(key) = \(ValueArgument.cell(value))\n")
        } else if property.error == nil {
            StandardStreams.out("\(key) has no value yet: its sources have none\n")
        }
        if let error = property.error {
            let kept = property.value == nil ? "" : " (it keeps the value above)"
            StandardStreams.err("propctl: warning: \(key) is in an evaluation error: \(TerminalText.escaped(error))\(kept)\n")
        }
    }

    private func bindFile(_ path: String) async throws {
        let text = try TextFile.read(path)
        let style = Style.standardError
        let entries: [PropFileEntry]
        do {
            entries = try PropFile.split(text)
        } catch {
            throw PropctlFailure(kind: .usage, lines: ["\(path):\(error.line):\(error.column): error: \(error.message)"]
                + SourceExcerpt.lines(of: text, line: error.line, column: error.column, style: style))
        }
        guard !entries.isEmpty else { throw PropctlFailure.usage("\(path) declares no bindings") }
        let client = try await global.connect()
        let transaction = BindingTransaction(client: client)
        let result: (revision: Revision, sources: [[String]])
        do {
            result = try await transaction.apply(entries.map { .init(key: $0.key, expression: $0.expression) })
            await client.close()
        } catch {
            await client.close()
            throw BindFileRefusal.failure(error, entries: entries, path: path, text: text, socket: global.socketChoice)
        }
        if global.json {
            var bound: [JSONValue] = []
            for (entry, sources) in zip(entries, result.sources) {
                bound.append(.object(["key": .string(entry.key), "sources": .array(sources.map { .string($0) })]))
            }
            WireJSON.print(.object(["revision": .integer(result.revision.rawValue), "bindings": .array(bound)]))
        } else {
            let keys = entries.map(\.key).joined(separator: ", ")
            StandardStreams.out("\(result.revision)  bound \(entries.count) from \(path): \(keys)\n")
        }
    }
}

/// How a refused `bind --file` reads: the daemon's error at its place in the file.
enum BindFileRefusal {
    static func failure(
        _ refusal: BindingTransaction.Refusal, entries: [PropFileEntry], path: String, text: String,
        socket: SocketChoice
    ) -> PropctlFailure {
        let error = refusal.error
        guard refusal.index >= 0, refusal.index < entries.count, !error.isUnreachable else {
            return PropctlFailure(error, socket: socket)
        }
        let entry = entries[refusal.index]
        let style = Style.standardError
        var line = entry.line
        var column = entry.column
        var message = error.description
        if case .refused(.bindingInvalid(let plain, let l, let c)) = error {
            (line, column) = entry.filePosition(expressionLine: l, column: c)
            message = SourceExcerpt.plainMessage(plain, line: l, column: c)
        }
        var lines = ["\(path):\(line):\(column): error: \(error.name): \(TerminalText.escaped(message))"]
        lines += SourceExcerpt.lines(of: text, line: line, column: column, style: style)
        if refusal.undoFailures.isEmpty {
            lines.append("nothing was bound: the \(refusal.index) binding(s) before it were put back as they were")
        } else {
            lines.append("warning: could not put back every binding made before the error:")
            lines += refusal.undoFailures.map { "  " + $0 }
        }
        return PropctlFailure(kind: .daemon, lines: lines)
    }
}
