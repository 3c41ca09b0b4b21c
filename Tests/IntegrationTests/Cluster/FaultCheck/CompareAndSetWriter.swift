import PropdClient
import PropdCore

/// A client of one node that sets one key again and again, each time with
/// `expect` on the revision it last knew, and records what it was told.
struct CompareAndSetWriter: Sendable {
    /// The reason recorded for a call whose node died with it in flight.
    static let connectionLost = "connection lost"

    var id: Int
    var node: Int
    var key: String
    var socketPath: String

    /// Writes until the ledger stops (or the task is cancelled); reconnects
    /// while its node is down.
    func run(recordingIn ledger: WriteLedger) async {
        var client: PropdClient?
        var known: Revision?
        var sequence: Int64 = 0
        while !Task.isCancelled, await ledger.isRunning {
            guard let connected = client else {
                client = try? await PropdClient.connect(to: socketPath)
                // The node is down: try again at a client's pace.
                if client == nil { try? await Task.sleep(for: .milliseconds(50)) }
                continue
            }
            guard let expected = known else {
                do {
                    known = try await connected.get([key]).first?.revision
                } catch {
                    if error.isUnreachable { client = nil }
                }
                continue
            }
            sequence += 1
            var attempt = Attempt(
                client: id, node: node, key: key, value: Int64(id) * 1_000_000 + sequence, expected: expected,
                outcome: .indeterminate(""))
            do {
                let revision = try await connected.set([key: .integer(attempt.value)], expect: [key: expected])
                attempt.outcome = .acknowledged(revision)
                known = revision
            } catch {
                known = nil
                switch error {
                case .refused(.revisionMismatch(_, _, let actual)):
                    attempt.outcome = .refused("RevisionMismatch")
                    known = actual
                case .refused(.unavailable(let message)):
                    attempt.outcome = .indeterminate("Unavailable: \(message)")
                case .connectionClosed, .cannotConnect:
                    attempt.outcome = .indeterminate(Self.connectionLost)
                    client = nil
                default:
                    attempt.outcome = .indeterminate("\(error.name): \(error)")
                }
            }
            await ledger.record(attempt)
        }
        await client?.close()
    }
}
