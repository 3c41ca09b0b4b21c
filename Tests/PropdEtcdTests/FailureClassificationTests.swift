import GRPCCore
import Testing

@testable import PropdEtcd

/// etcd's fixed error strings map to named codes, and the split between
/// "not applied, try another member" and "maybe applied" holds.
@Suite struct FailureClassificationTests {
    func code(_ status: RPCError.Code, _ message: String) -> EtcdError.Code? {
        if case .final(let error) = EtcdFailure(RPCError(code: status, message: message)) { error.code } else { nil }
    }

    @Test func etcdsLimitsAndAnswersHaveTheirOwnCodes() {
        #expect(code(.invalidArgument, "etcdserver: too many operations in txn request") == .tooManyOperations)
        #expect(code(.invalidArgument, "etcdserver: request is too large") == .requestTooLarge)
        #expect(code(.resourceExhausted, "grpc: received message larger than max (3000010 vs. 2097152)") == .requestTooLarge)
        #expect(code(.resourceExhausted, "etcdserver: mvcc: database space exceeded") == .noSpace)
        #expect(code(.outOfRange, "etcdserver: mvcc: required revision has been compacted") == .compacted)
        #expect(code(.outOfRange, "etcdserver: mvcc: required revision is a future revision") == .futureRevision)
        #expect(code(.notFound, "etcdserver: requested lease not found") == .leaseNotFound)
        #expect(code(.invalidArgument, "etcdserver: duplicate key given in txn request") == .duplicateKey)
        #expect(code(.unknown, "election: not leader") == .notLeader)
        #expect(code(.permissionDenied, "etcdserver: permission denied") == .rejected)
    }

    @Test func onlyWhatNeverReachedRaftCountsAsNotApplied() {
        func notApplied(_ status: RPCError.Code, _ message: String) -> Bool {
            if case .notApplied = EtcdFailure(RPCError(code: status, message: message)) { true } else { false }
        }
        func maybeApplied(_ status: RPCError.Code, _ message: String) -> Bool {
            if case .maybeApplied = EtcdFailure(RPCError(code: status, message: message)) { true } else { false }
        }
        #expect(notApplied(.unavailable, "etcdserver: no leader"))
        #expect(notApplied(.unavailable, "Channel is in a transient failure state and 'wait for ready' isn't enabled."))
        #expect(notApplied(.unavailable, "Could not establish a connection to [ipv4]127.0.0.1:2379."))
        #expect(maybeApplied(.unavailable, "The TCP connection was dropped unexpectedly."))
        #expect(maybeApplied(.unavailable, "etcdserver: leader changed"))
        #expect(maybeApplied(.unavailable, "etcdserver: request timed out"))
        #expect(maybeApplied(.deadlineExceeded, "Timed out waiting for a response"))
        #expect(maybeApplied(.unavailable, "The stream was closed"))
    }
}
