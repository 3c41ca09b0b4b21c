import Foundation
import PropdCore
import PropdWire
import Testing

/// The IDL as `schema/io.propd.varlink` declares it: methods with their reply
/// fields, errors with their parameters.
struct DeclaredInterface {
    var replyFields: [String: Set<String>] = [:]
    var callParameters: [String: Set<String>] = [:]
    var errorParameters: [String: Set<String>] = [:]
    var typeFields: [String: Set<String>] = [:]

    static let file: DeclaredInterface = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let path = url.appendingPathComponent("schema/io.propd.varlink").path
        guard let text = FileManager.default.contents(atPath: path).flatMap({ String(data: $0, encoding: .utf8) }) else {
            return DeclaredInterface()
        }
        return DeclaredInterface(idl: text)
    }()

    init() {}

    /// Reads the declarations: comments dropped, a declaration may span lines.
    init(idl: String) {
        let uncommented = idl.split(separator: "\n").map { line in
            line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        }.joined(separator: " ")
        for declaration in uncommented.components(separatedBy: "method ").dropFirst() {
            let name = String(declaration.prefix { $0.isLetter })
            callParameters[name] = Self.fields(in: String(declaration.dropFirst(name.count)))
            guard let arrow = declaration.range(of: "->") else { continue }
            replyFields[name] = Self.fields(in: String(declaration[arrow.upperBound...]))
        }
        for declaration in uncommented.components(separatedBy: "type ").dropFirst() {
            let name = String(declaration.prefix { $0.isLetter })
            typeFields[name] = Self.fields(in: String(declaration.dropFirst(name.count)))
        }
        for declaration in uncommented.components(separatedBy: "error ").dropFirst() {
            let name = String(declaration.prefix { $0.isLetter })
            errorParameters[name] = Self.fields(in: String(declaration.dropFirst(name.count)))
        }
    }

    /// The names in the first parenthesised list of `text`: `(a: int, b: ?[]string)`.
    static func fields(in text: String) -> Set<String> {
        guard let open = text.firstIndex(of: "("), let close = text[open...].firstIndex(of: ")") else { return [] }
        let list = text[text.index(after: open)..<close]
        return Set(
            list.split(separator: ",").compactMap { field in
                field.split(separator: ":").first.map { $0.trimmingCharacters(in: .whitespaces) }
            }.filter { !$0.isEmpty })
    }
}

@Suite struct IDLTests {
    let idl = DeclaredInterface.file

    @Test func theIDLWasRead() {
        #expect(idl.replyFields.count >= 14)
        #expect(idl.errorParameters.count >= 18)
    }

    @Test func methodNamesAreTheIDLs() {
        #expect(Set(IOPropdMethod.allCases.map(\.rawValue)) == Set(idl.replyFields.keys))
        #expect(IOPropdMethod.get.qualifiedName == "io.propd.Get")
    }

    @Test func errorNamesAreTheIDLs() {
        #expect(Set(IOPropdError.Name.allCases.map(\.rawValue)) == Set(idl.errorParameters.keys))
    }

    @Test(arguments: WireSamples.errors)
    func errorParametersAreTheIDLs(error: IOPropdError) {
        #expect(Set(error.parameters.keys) == idl.errorParameters[error.name.rawValue])
    }

    @Test func typeFieldsAreTheIDLs() throws {
        let property = try #require(WireSamples.properties.first)
        #expect(Set(try #require(property.wireValue.fields).keys) == idl.typeFields["Property"])
        let event = try #require(WireSamples.events.first)
        #expect(Set(try #require(event.wireValue.fields).keys) == idl.typeFields["Event"])
        let binding = try #require(WireSamples.bindings.first)
        #expect(Set(try #require(binding.wireValue.fields).keys) == idl.typeFields["Binding"])
        let invocation = try #require(WireSamples.invocations.first)
        #expect(Set(try #require(invocation.wireValue.fields).keys) == idl.typeFields["Invocation"])
    }

    @Test(arguments: WireSamples.fullCalls)
    func callParametersAreTheIDLs(call: IOPropdCall) {
        #expect(Set(call.parameters.keys) == idl.callParameters[call.method.rawValue])
    }

    @Test func everyMethodHasAFullCallSample() {
        #expect(Set(WireSamples.fullCalls.map(\.method)) == Set(IOPropdMethod.allCases))
    }

    @Test(arguments: IOPropdMethod.allCases)
    func replyFieldsAreTheIDLs(method: IOPropdMethod) {
        // Every optional field filled: the sample shows every field there is.
        #expect(Set(WireSamples.fullReply(method).parameters.keys) == idl.replyFields[method.rawValue])
    }
}
