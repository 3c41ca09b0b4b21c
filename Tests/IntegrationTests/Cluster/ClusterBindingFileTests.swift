import EtcdTestSupport
import Foundation
import PropdClient
import PropdCore
import PropdTestSupport
import Testing

/// Binding files in a cluster: each node's `--bindings` directory is its
/// own. A node applies, changes and removes only the bindings its own files
/// declared, so a node started with other files (or none) leaves another's
/// alone.
@Suite(.serialized, .enabled(if: EtcdCluster.executable != nil, "\(EtcdCluster.missingReason)"))
struct ClusterBindingFileTests {
    @Test func eachNodesBindingFilesAreItsOwn() async throws {
        let nodes = try await TwoNodes(prefix: "/propd/files")
        try Self.write("f.double = f.x.map { x in x * 2 }\n", to: nodes.a.bindingsDirectory + "/a.prop")
        let applied = try await nodes.clientA.reload()
        #expect(applied.errors.isEmpty)
        // A write on a node is answered once its mirror has it, and so every earlier revision.
        try await nodes.clientB.set(["sync.b": 1])
        #expect(try await nodes.clientB.bindings().map(\.key) == ["f.double"])

        // B has no binding files: its reload, and its start, leave A's binding.
        #expect(try await nodes.clientB.reload().errors.isEmpty)
        #expect(try await nodes.clientA.bindings().map(\.key) == ["f.double"])
        try nodes.b.restart()
        let clientB = try await PropdClient.connect(to: nodes.b.socketPath)
        #expect(try await clientB.bindings().map(\.key) == ["f.double"])
        // The binding works from either node.
        let written = try await clientB.set(["f.x": 21])
        #expect(try await clientB.get(["f.double"]).first?.value == 42)
        #expect(try await clientB.get(["f.double"]).first?.revision == written)

        // B's own file: A's reload leaves it too.
        try Self.write("g.triple = g.x.map { x in x * 3 }\n", to: nodes.b.bindingsDirectory + "/b.prop")
        #expect(try await clientB.reload().errors.isEmpty)
        #expect(try await nodes.clientA.reload().errors.isEmpty)
        try await nodes.clientA.set(["sync.a": 1])
        #expect(try await nodes.clientA.bindings().map(\.key) == ["f.double", "g.triple"])

        // A drops its file: its binding goes, B's stays.
        try FileManager.default.removeItem(atPath: nodes.a.bindingsDirectory + "/a.prop")
        #expect(try await nodes.clientA.reload().errors.isEmpty)
        try await clientB.set(["sync.b": 2])
        #expect(try await clientB.bindings().map(\.key) == ["g.triple"])
    }

    static func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
