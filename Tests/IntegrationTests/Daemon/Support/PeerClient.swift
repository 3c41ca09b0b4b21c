import Foundation
import PropdCore

/// A Varlink client running as another real user: the system's python,
/// started through setpriv, speaking the wire protocol on a plain socket so
/// the daemon sees that user's SO_PEERCRED. The test sends it one call per
/// line on stdin and reads each reply as a line on stdout.
final class PeerClient {
    private let process: Spawned
    private let input: FileHandle
    private let output: LineReader

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads commands, one JSON object per line: `{"method", "parameters"}`
    /// answers with the reply; `{"subscribe": parameters, "until": key}`
    /// answers `{"synced": [events]}` (or the error), then, once an event for
    /// `until` arrived, `{"events": [events]}`.
    static let script = #"""
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[1])
        buf = b""
        def recv():
            global buf
            while b"\0" not in buf:
                chunk = s.recv(65536)
                if not chunk:
                    print(json.dumps({"closed": True}), flush=True)
                    sys.exit(0)
                buf += chunk
            msg, _, buf = buf.partition(b"\0")
            return json.loads(msg)
        while True:
            line = sys.stdin.readline()
            if not line:
                break
            cmd = json.loads(line)
            if "subscribe" in cmd:
                s.sendall(json.dumps({"method": "io.propd.Subscribe", "parameters": cmd["subscribe"], "more": True}).encode() + b"\0")
                events = []
                while True:
                    r = recv()
                    if "error" in r:
                        print(json.dumps(r), flush=True)
                        break
                    e = r["parameters"]["event"]
                    events.append(e)
                    if e["kind"] == "synced":
                        print(json.dumps({"synced": events}), flush=True)
                        events = []
                    elif e["key"] == cmd["until"]:
                        print(json.dumps({"events": events}), flush=True)
                        break
            else:
                s.sendall(json.dumps({"method": cmd["method"], "parameters": cmd.get("parameters", {}), "more": cmd.get("more", False)}).encode() + b"\0")
                print(json.dumps(recv()), flush=True)
        """#

    init(user: TestUser, socket: String, logPath: String) throws {
        guard let setpriv = TestUser.setpriv, let python = TestUser.python else {
            throw Failure(description: "needs setpriv and python3")
        }
        let stdin = Pipe()
        let stdout = Pipe()
        output = LineReader(stdout)
        process = try Spawned(
            executable: setpriv, arguments: user.setprivPrefix + [python, "-c", Self.script, socket],
            environment: PropdLaunch.environment([:]), logPath: logPath, standardInput: stdin, standardOutput: stdout)
        input = stdin.fileHandleForWriting
    }

    deinit { try? input.close() }

    private func send(_ command: JSONValue) throws {
        try input.write(contentsOf: Data(command.jsonBytes + [10]))
    }

    private func reply() async throws -> JSONValue {
        let line: String
        do {
            line = try await output.next(timeout: .seconds(30))
        } catch {
            throw Failure(description: "the peer client sent no reply; its stderr:\n\(process.log)")
        }
        return try JSONValue(parsingUTF8: Array(line.utf8))
    }

    /// One call; the whole reply (`parameters` or `error`); with `more`, its first reply.
    func call(_ method: String, _ parameters: JSONValue = [:], more: Bool = false) async throws -> JSONValue {
        try send(["method": .string("io.propd." + method), "parameters": parameters, "more": .bool(more)])
        return try await reply()
    }

    /// Subscribes; returns the backlog up to `synced` (or the error reply).
    func subscribe(_ parameters: JSONValue, until key: String) async throws -> JSONValue {
        try send(["subscribe": parameters, "until": .string(key)])
        return try await reply()
    }

    /// The next line the client printed (e.g. a subscription's error reply).
    func nextLine() async throws -> JSONValue { try await reply() }

    /// After ``subscribe(_:until:)``: the live events up to the one for its `until` key.
    func liveEvents() async throws -> [JSONValue] {
        guard case .array(let events) = try await reply()["events"] else { throw Failure(description: "no events") }
        return events
    }
}

extension JSONValue {
    /// Whether this reply is `io.propd.PermissionDenied(key)`.
    func isDenied(_ key: String) -> Bool {
        self["error"] == "io.propd.PermissionDenied" && self["parameters"]?["key"] == .string(key)
    }

    var errorName: String? {
        if case .string(let name) = self["error"] { return name }
        return nil
    }

    /// The `key` members of an array of objects.
    var keys: [String] {
        guard case .array(let items) = self else { return [] }
        return items.compactMap { if case .string(let key) = $0["key"] { return key } else { return nil } }
    }
}
