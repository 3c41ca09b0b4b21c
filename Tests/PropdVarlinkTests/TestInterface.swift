import Logging
import NIOConcurrencyHelpers
import NIOCore
import PropdJSON
import PropdVarlink

/// Where handlers of the test interface leave their responders and streams
/// so a test can answer them when and in the order it chooses.
final class ParkingLot: Sendable {
    private struct State {
        var responders: [Int64: VarlinkResponder] = [:]
        var streams: [Int64: VarlinkReplyStream] = [:]
        var terminated: Set<Int64> = []
        var waiters: [(condition: @Sendable (State) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = NIOLockedValueBox(State())
    private let bigCalls = NIOLockedValueBox(0)

    /// How many `Big` calls have run.
    var bigCallCount: Int { bigCalls.withLockedValue { $0 } }
    func noteBigCall() { bigCalls.withLockedValue { $0 += 1 } }

    func park(_ id: Int64, _ responder: VarlinkResponder) {
        update { $0.responders[id] = responder }
    }

    func park(_ id: Int64, _ stream: VarlinkReplyStream) {
        update { $0.streams[id] = stream }
        stream.onTermination { [self] in update { _ = $0.terminated.insert(id) } }
    }

    func responder(_ id: Int64) -> VarlinkResponder? { state.withLockedValue { $0.responders[id] } }
    func stream(_ id: Int64) -> VarlinkReplyStream? { state.withLockedValue { $0.streams[id] } }

    /// Returns once every id in `ids` has a parked responder.
    func waitForResponders(_ ids: Set<Int64>) async {
        await wait { ids.isSubset(of: Set($0.responders.keys)) }
    }

    func waitForStream(_ id: Int64) async -> VarlinkReplyStream {
        await wait { $0.streams[id] != nil }
        return state.withLockedValue { $0.streams[id]! }
    }

    func waitForTermination(_ id: Int64) async {
        await wait { $0.terminated.contains(id) }
    }

    private func wait(until condition: @escaping @Sendable (State) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLockedValue { state in
                if condition(state) { return true }
                state.waiters.append((condition, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func update(_ change: (inout State) -> Void) {
        let ready: [CheckedContinuation<Void, Never>] = state.withLockedValue { state in
            change(&state)
            let snapshot = state
            var ready: [CheckedContinuation<Void, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.condition(snapshot) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}

struct UnexpectedTestFailure: Error {}

enum TestInterface {
    static let name = "org.example.test"

    static let description = """
        # The interface PropdVarlink's tests serve.
        interface org.example.test

        method Echo(value: ?object) -> (value: ?object)
        method AsyncEcho(value: ?object) -> (value: ?object)
        method Park(id: int) -> (id: int)
        method Count(n: int) -> (i: int)
        method Hold(id: int) -> (tick: int)
        method Fail() -> ()
        method Crash() -> ()
        method Missing() -> ()
        method WhoAmI() -> (uid: int, gid: int, pid: int, connection: int)
        method Big(bytes: int) -> (value: string)
        method BigRead(bytes: int) -> (value: string)
        method Tag(value: int) -> (value: int, way: string)
        method ReadTag(value: int) -> (value: int, way: string)

        error Boom (why: string)

        """

    static func interface(lot: ParkingLot) -> VarlinkInterface {
        // A reply of `bytes` bytes, counted.
        let big: @Sendable (VarlinkCall, VarlinkConnectionContext) throws -> [String: JSONValue] = { call, _ in
            lot.noteBigCall()
            let bytes = try call.parameters.requiredInteger("bytes")
            return ["value": .string(String(repeating: "b", count: Int(bytes)))]
        }
        return VarlinkInterface(
            name: name, description: description,
            methods: [
                .synchronous("Echo") { call, _ in call.parameters },
                .asynchronous("AsyncEcho") { call, _ in
                    await Task.yield()
                    return call.parameters
                },
                .responding("Park") { call, _, responder in
                    do throws(VarlinkCallError) {
                        lot.park(try call.parameters.requiredInteger("id"), responder)
                    } catch {
                        responder.fail(error)
                    }
                },
                .streaming("Count") { call, _, stream in
                    do throws(VarlinkCallError) {
                        let n = try call.parameters.requiredInteger("n")
                        for i in 0..<max(n - 1, 0) { stream.send(["i": .integer(i)]) }
                        stream.finish(["i": .integer(max(n - 1, 0))])
                    } catch {
                        stream.finish(throwing: error)
                    }
                },
                .streaming("Hold") { call, _, stream in
                    do throws(VarlinkCallError) {
                        lot.park(try call.parameters.requiredInteger("id"), stream)
                    } catch {
                        stream.finish(throwing: error)
                    }
                },
                .synchronous("Fail") { _, _ in
                    throw VarlinkCallError(name: "org.example.test.Boom", parameters: ["why": "asked"])
                },
                .synchronous("Crash") { _, _ in throw UnexpectedTestFailure() },
                .synchronous("Big", big),
                .synchronous("BigRead", big).startingAfterEarlierCalls(),
                // Answers the way it was decoded: straight from the frame
                // (`{"value": N}` only) or through the parameter dictionary.
                .responding("Tag") { call, _, responder in
                    do throws(VarlinkCallError) {
                        responder.succeed(["value": .integer(try call.parameters.requiredInteger("value")), "way": "body"])
                    } catch {
                        responder.fail(error)
                    }
                }
                .decodingDirectly(TestInterface.readTagValue) { value, _, responder in
                    responder.succeed(["value": .integer(value), "way": "direct"])
                },
                // The same for a read answered on the loop, after earlier calls.
                .synchronous("ReadTag") { call, _ in
                    ["value": .integer(try call.parameters.requiredInteger("value")), "way": "body"]
                }
                .startingAfterEarlierCalls()
                .decodingDirectly(TestInterface.readTagValue) { value, _, responder in
                    responder.succeed(["value": .integer(value), "way": "direct"])
                },
                .synchronous("WhoAmI") { _, connection in
                    guard let peer = connection.peer else { throw VarlinkCallError.permissionDenied }
                    return [
                        "uid": .integer(Int64(peer.uid)), "gid": .integer(Int64(peer.gid)),
                        "pid": .integer(Int64(peer.pid)), "connection": .integer(Int64(connection.id)),
                    ]
                },
            ])
    }

    /// `{"value": N}` and nothing else, read straight from the frame.
    @Sendable static func readTagValue(_ reader: inout JSONReader) throws(JSONParseError) -> Int64? {
        guard var object = try reader.beginObject(), try reader.nextMember(of: &object) == "value",
            case .integer(let value) = try reader.readValue(), try reader.nextMember(of: &object) == nil
        else { return nil }
        return value
    }

    static let info = VarlinkServiceInfo(
        vendor: "propd tests", product: "PropdVarlinkTests", version: "1.0", url: "https://example.org/propd")
}
