import PropdClient
import PropdCore

/// The binding graph: every source and derived key, and an edge from each
/// source to the key derived from it, labelled with the operator chain.
struct BindingGraph {
    struct Node: Equatable {
        var key: String
        var isDerived: Bool
        var error: String?
    }

    struct Edge: Equatable {
        var from: String
        var to: String
        var operators: [String]
        /// `takeUntil`'s key: its changes end the stream, its values are not read.
        var isStopSignal = false
    }

    var nodes: [Node] = []
    var edges: [Edge] = []

    init(bindings: [BindingInfo]) {
        var index: [String: Int] = [:]
        func node(_ key: String) -> Int {
            if let i = index[key] { return i }
            index[key] = nodes.count
            nodes.append(Node(key: key, isDerived: false))
            return nodes.count - 1
        }
        for binding in bindings {
            let i = node(binding.key)
            nodes[i].isDerived = true
            nodes[i].error = binding.error
        }
        for binding in bindings {
            let operators = OperatorChain.of(binding.expression)
            let stopSignals = OperatorChain.stopSignals(of: binding.expression)
            for source in binding.sources {
                _ = node(source)
                if stopSignals.contains(source) {
                    edges.append(Edge(from: source, to: binding.key, operators: ["takeUntil"], isStopSignal: true))
                } else {
                    edges.append(Edge(from: source, to: binding.key, operators: operators))
                }
            }
        }
    }

    /// Graphviz DOT: sources as ellipses, derived keys as filled boxes, keys
    /// in an error state red with the error in their label; `flatMap` edges
    /// dashed (they also follow keys chosen at run time), and so is the edge
    /// from `takeUntil`'s key (a stop signal, whose values are not read).
    var dot: String {
        var out = "digraph propd {\n"
        out += "  rankdir=LR;\n"
        out += "  node [fontname=\"Helvetica\", fontsize=11];\n"
        out += "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\"];\n"
        for node in nodes {
            var attributes: [String]
            if let error = node.error {
                attributes = [
                    "shape=box", "style=\"rounded,filled\"", "fillcolor=\"#fde2e2\"", "color=\"#c0392b\"",
                    "penwidth=2", "label=" + Self.quote(node.key + "\n! " + error), "tooltip=" + Self.quote(error),
                ]
            } else if node.isDerived {
                attributes = ["shape=box", "style=\"rounded,filled\"", "fillcolor=\"#e3edf9\""]
            } else {
                attributes = ["shape=ellipse"]
            }
            out += "  \(Self.quote(node.key)) [\(attributes.joined(separator: ", "))];\n"
        }
        for edge in edges {
            var attributes = ["label=" + Self.quote(edge.operators.joined(separator: " → "))]
            if edge.isStopSignal || edge.operators.contains("flatMap") || edge.operators.contains("flattenMap") {
                attributes.append("style=dashed")
            }
            out += "  \(Self.quote(edge.from)) -> \(Self.quote(edge.to)) [\(attributes.joined(separator: ", "))];\n"
        }
        return out + "}\n"
    }

    var json: JSONValue {
        .object([
            "nodes": .array(nodes.map { node in
                var o: [String: JSONValue] = ["key": .string(node.key), "derived": .bool(node.isDerived)]
                if let error = node.error { o["error"] = .string(error) }
                return .object(o)
            }),
            "edges": .array(edges.map { edge in
                .object([
                    "from": .string(edge.from), "to": .string(edge.to),
                    "operators": .array(edge.operators.map { .string($0) }),
                ])
            }),
        ])
    }

    /// A DOT string literal.
    static func quote(_ text: String) -> String {
        var out = "\""
        for c in text {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out + "\""
    }
}
