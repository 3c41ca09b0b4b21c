import Foundation

extension EtcdCluster {
    /// One call to a member's JSON gateway (`/v3/kv/put`, `/v3/kv/range`,
    /// …) made by a separate `python3` process and waited for: a test can
    /// write to etcd from inside a write request's body, while the node's
    /// event loops (and grpc-swift's, which may share a thread with them)
    /// are blocked. Keys and values in `body` are base64, as the gateway
    /// takes them; returns the gateway's JSON answer.
    public static func gateway(_ clientURL: String, _ path: String, _ body: [String: Any]) throws -> [String: Any] {
        let script = """
            import sys, urllib.request
            request = urllib.request.Request(sys.argv[1], data=sys.argv[2].encode(), headers={"Content-Type": "application/json"})
            sys.stdout.write(urllib.request.urlopen(request, timeout=10).read().decode())
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        process.arguments = ["-c", script, clientURL + path, json]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let answer = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let object = try JSONSerialization.jsonObject(with: answer) as? [String: Any]
        else { throw GatewayCallFailed(path: path, status: process.terminationStatus) }
        return object
    }

    public struct GatewayCallFailed: Error {
        public var path: String
        public var status: Int32
    }
}

/// `text` as the JSON gateway takes keys and values.
public func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
