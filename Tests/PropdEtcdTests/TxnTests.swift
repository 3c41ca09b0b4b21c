import EtcdTestSupport
import GRPCCore
import NIOCore
import PropdEtcd
import Testing

extension EtcdClusterTests {
    @Suite struct TxnTests {
        @Test(arguments: [EtcdTxnRoute.gateway, .grpc])
        func comparesThatHoldRunSuccessAndOnesThatFailRunFailure(route: EtcdTxnRoute) async throws {
            try await withCluster { _, etcd in
                let key = "/t/a".bytes
                // Create only if absent: wins the first time, loses the second.
                let created = try await etcd.txn(
                    [EtcdCompare(.key(key), .equal, .createRevision(0))],
                    success: [.put(key: key, value: "1".bytes)], via: route)
                #expect(created.succeeded)
                let again = try await etcd.txn(
                    [EtcdCompare(.key(key), .equal, .createRevision(0))],
                    success: [.put(key: key, value: "2".bytes)],
                    failure: [.range(.key(key))], via: route)
                #expect(!again.succeeded)
                #expect(again.revision == created.revision, "a losing txn that only reads writes nothing")
                guard case .range(let current) = again.results.first else {
                    Issue.record("the failure branch's range answered \(again.results)")
                    return
                }
                #expect(current.keyValues.map(\.value.string) == ["1"])

                // Compare-and-swap on mod_revision: the writer that read the
                // current revision wins; the one holding a stale revision loses.
                let swapped = try await etcd.txn(
                    [EtcdCompare(.key(key), .equal, .modRevision(created.revision))],
                    success: [.put(key: key, value: "3".bytes), .put(key: "/t/derived".bytes, value: "6".bytes)],
                    via: route)
                #expect(swapped.succeeded)
                #expect(swapped.revision == created.revision + 1, "two puts, one revision")
                let stale = try await etcd.txn(
                    [EtcdCompare(.key(key), .equal, .modRevision(created.revision))],
                    success: [.put(key: key, value: "4".bytes)], via: route)
                #expect(!stale.succeeded)

                // version and value compares.
                let byVersion = try await etcd.txn(
                    [EtcdCompare(.key(key), .equal, .version(2)), EtcdCompare(.key(key), .equal, .value("3".bytes))],
                    success: [.delete(.key("/t/derived".bytes))], via: route)
                #expect(byVersion.succeeded)
                let byValue = try await etcd.txn(
                    [EtcdCompare(.key(key), .notEqual, .value("3".bytes))], success: [.delete(.key(key))], via: route)
                #expect(!byValue.succeeded)
                let read = try await etcd.range(.prefix("/t/".bytes))
                #expect(read.keyValues.map(\.key.string) == ["/t/a"])
                #expect(read.keyValues.first?.value == "3".bytes)
            }
        }

        @Test func transactionsOnTheTransactionLoopOutlastEtcdsPingPerRequest() async throws {
            // etcd pings once per request; swift-nio-http2 closes a connection
            // after 200 pings in 30 s unless told otherwise.
            try await withCluster { _, etcd in
                var revisions: [Int64] = []
                for i in 0..<500 {
                    let result = try await etcd.txnFuture(
                        [], success: [.put(key: "/s/\(i % 10)".bytes, value: "\(i)".bytes)]
                    ).get()
                    revisions.append(result.revision)
                }
                #expect(revisions == revisions.sorted() && Set(revisions).count == 500)
                let read = try await etcd.range(.prefix("/s/".bytes))
                #expect(read.keyValues.map(\.value.string).sorted() == (490..<500).map(String.init))
            }
        }

        @Test func transactionsStartedTogetherOnTheLoopEachGetTheirOwnReply() async throws {
            try await withCluster { _, etcd in
                let loop = etcd.transactionLoop
                // Started in one tick of the loop: one connection carries them all at once.
                let replies = try await loop.flatSubmit {
                    EventLoopFuture.whenAllSucceed(
                        (0..<300).map { i in
                            etcd.txnFuture([], success: [.put(key: "/m/\(i)".bytes, value: "\(i)".bytes)]).map { (i, $0.revision) }
                        }, on: loop)
                }.get()
                #expect(Set(replies.map(\.1)).count == 300, "one revision per transaction")
                let read = try await etcd.range(.prefix("/m/".bytes))
                let written = Dictionary(uniqueKeysWithValues: read.keyValues.map { (Int($0.value.string) ?? -1, $0.modRevision) })
                #expect(written == Dictionary(uniqueKeysWithValues: replies), "each call got the reply to its own transaction")
            }
        }

        /// SIGSTOP, not a kill: the member keeps the connection open and
        /// answers nothing, so only the call's deadline ends it.
        ///
        /// The member frozen is a follower: a leader frozen past the
        /// election timeout is replaced, and once thawed it drops every
        /// proposal that reaches it before it has stepped down, failing
        /// each only at etcd's own request timeout (7.5 s, past the
        /// client's 5 s).
        @Test func aTransactionToAMemberThatStopsAnsweringEndsAtItsDeadline() async throws {
            try await withCluster { cluster, allMembers in
                let follower = (try await allMembers.leaderIndex() + 1) % 3
                // The default request timeout (5 s): a shorter one fails
                // the unfrozen calls too on a loaded machine.
                let configuration = EtcdClient.Configuration(endpoints: [try EtcdEndpoint(cluster.clientURLs[follower])])
                try await withEtcdClient(configuration) { etcd in
                    // Before the freeze, a write must get through. On a loaded
                    // machine the fresh cluster may let the first one reach its
                    // deadline: it is tried again, as the writes after the thaw.
                    let first = try await Self.put(through: etcd, "/f/a", "1", attempts: 3)
                    try #require(first?.succeeded == true)
                    cluster.freeze(follower)
                    // The wait on the call's end is bounded, so that a call
                    // without a deadline fails the test instead of hanging it.
                    let loop = etcd.transactionLoop
                    let ended = loop.makePromise(of: EtcdTxnResult.self)
                    etcd.txnFuture([], success: [.put(key: "/f/b".bytes, value: "2".bytes)]).cascade(to: ended)
                    let bound = loop.scheduleTask(in: .seconds(30)) {
                        ended.fail(DeadlinePassed(waitingFor: "the call to the frozen member to end"))
                    }
                    let frozen = await #expect(throws: EtcdError.self) { try await ended.futureResult.get() }
                    bound.cancel()
                    cluster.thaw(follower)
                    #expect(frozen?.code == .outcomeUnknown, "a write past its deadline may have been applied")
                    #expect((frozen?.cause as? RPCError)?.code == .deadlineExceeded)
                    // Thawed, the member answers transactions on the same
                    // connection again. The first ones may still be lost by
                    // etcd and end at their deadline: frozen past 5 s, the
                    // member's connections to its peers timed out, and a
                    // proposal it forwards before it has made them again
                    // (its log: "closed an existing TCP streaming
                    // connection") is dropped, failing only at etcd's own
                    // request timeout.
                    let after = try await Self.put(through: etcd, "/f/c", "3", attempts: 5)
                    #expect(after?.succeeded == true)
                }
            }
        }

        /// A put on the transaction loop, tried again while etcd loses it
        /// (its outcome unknown, or no member to take it); `nil` when every
        /// attempt was lost.
        static func put(through etcd: EtcdClient, _ key: String, _ value: String, attempts: Int) async throws
            -> EtcdTxnResult?
        {
            for _ in 0..<attempts {
                do {
                    return try await etcd.txnFuture([], success: [.put(key: key.bytes, value: value.bytes)]).get()
                } catch let error as EtcdError where error.code == .outcomeUnknown || error.code == .unavailable {
                    continue
                }
            }
            return nil
        }

        @Test func etcdLimitsAreTypedErrorsAndApplyNothing() async throws {
            try await withCluster { _, etcd in
                let before = try await etcd.put("/l/marker".bytes, "0".bytes).revision
                let atLimit = (0..<128).map { EtcdOperation.put(key: "/l/\($0)".bytes, value: "v".bytes) }
                #expect(try await etcd.txn([], success: atLimit).succeeded)

                let overLimit = (0..<129).map { EtcdOperation.put(key: "/l/x\($0)".bytes, value: "v".bytes) }
                let tooMany = await #expect(throws: EtcdError.self) { try await etcd.txn([], success: overLimit) }
                #expect(tooMany?.code == .tooManyOperations)

                let tooLarge = await #expect(throws: EtcdError.self) {
                    try await etcd.put("/l/big".bytes, [UInt8](repeating: 0x61, count: 1_600_000))
                }
                #expect(tooLarge?.code == .requestTooLarge)
                let wayTooLarge = await #expect(throws: EtcdError.self) {
                    try await etcd.put("/l/bigger".bytes, [UInt8](repeating: 0x61, count: 3_000_000))
                }
                #expect(wayTooLarge?.code == .requestTooLarge)

                let duplicate = await #expect(throws: EtcdError.self) {
                    try await etcd.txn([], success: [.put(key: "/l/d".bytes, value: []), .put(key: "/l/d".bytes, value: [])])
                }
                #expect(duplicate?.code == .duplicateKey)

                let read = try await etcd.range(.prefix("/l/".bytes))
                #expect(read.count == 129, "the marker and the 128 of the allowed txn, nothing of the refused ones")
                #expect(read.revision == before + 1)
            }
        }
    }
}
