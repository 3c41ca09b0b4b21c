import EtcdAPI
public import NIOCore

/// How a transaction reaches its member.
public enum EtcdTxnRoute: Sendable {
    /// The member's JSON gateway over HTTP/1.1 (``EtcdGateway``): the
    /// route of ``EtcdClient/txn(_:success:failure:)``, which costs this
    /// client less CPU per transaction.
    case gateway
    /// The member's gRPC API: costs etcd less CPU per transaction (its
    /// gateway is a proxy in front of it), this client more.
    case grpc
}

extension EtcdClient {
    /// Runs `success` if every compare holds, else `failure`, atomically: a
    /// transaction that writes is exactly one new revision.
    ///
    /// ```swift
    /// // Compare-and-swap: write only if nobody wrote since we read revision 41.
    /// let result = try await etcd.txn(
    ///     [EtcdCompare(.key(key), .equal, .modRevision(41))],
    ///     success: [.put(key: key, value: newValue)],
    ///     failure: [.range(.key(key))])
    /// if !result.succeeded { /* re-read from result.results and recompute */ }
    /// ```
    ///
    /// > Tip: etcd refuses more than `--max-txn-ops` operations (128 by
    /// > default) in one branch with ``EtcdError/Code/tooManyOperations``, and a
    /// > request over `--max-request-bytes` with ``EtcdError/Code/requestTooLarge``;
    /// > neither applies anything.
    public func txn(
        _ compares: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation] = []
    ) async throws -> EtcdTxnResult {
        try await txn(compares, success: success, failure: failure, via: .gateway)
    }

    /// ``txn(_:success:failure:)`` by the route given.
    public func txn(
        _ compares: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation] = [], via route: EtcdTxnRoute
    ) async throws -> EtcdTxnResult {
        let (request, replay) = Self.txnRequest(compares, success: success, failure: failure)
        return try await withFailover(replay, member: { member in
            switch route {
            case .gateway:
                EtcdTxnResult(try await member.gateway.txn(request))
            case .grpc:
                try await member.withConnection { connection in
                    EtcdTxnResult(
                        try await connection.kv.txn(request, metadata: EtcdMember.requireLeader, options: callOptions))
                }
            }
        })
    }

    /// ``txn(_:success:failure:)``, its result delivered on ``transactionLoop``:
    /// a gRPC call on the preferred member's ``LoopGRPCConnection``, so a
    /// caller there sends it and handles the reply without a thread
    /// hand-over; after a failure that left nothing applied it goes on as
    /// ``txn(_:success:failure:)``, with the other members.
    public func txnFuture(
        _ compares: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation] = []
    ) -> EventLoopFuture<EtcdTxnResult> {
        // Written and read directly (`TxnWire`): the route of every write request.
        let request = TxnWire.request(compares, success: success, failure: failure)
        let replay = Self.replay(success, failure)
        let member = memberOrder()[0]
        let result = transactionLoop.makePromise(of: EtcdTxnResult.self)
        member.loopConnection.call(
            "/etcdserverpb.KV/Txn", message: request, metadata: [EtcdMember.requireLeaderEntry]
        ).flatMapThrowing { reply throws(MalformedProtobuf) in try TxnWire.result(reply) }.whenComplete { reply in
            switch reply {
            case .success(let response):
                result.succeed(response)
            case .failure(let error):
                do {
                    _ = try self.nextMember(after: error, on: member, replay)
                    result.completeWithTask { try await self.txn(compares, success: success, failure: failure) }
                } catch {
                    result.fail(error)
                }
            }
        }
        return result.futureResult
    }

    private static func txnRequest(
        _ compares: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation]
    ) -> (Etcdserverpb_TxnRequest, EtcdReplay) {
        var request = Etcdserverpb_TxnRequest()
        request.compare = compares.map(\.message)
        request.success = success.map(\.message)
        request.failure = failure.map(\.message)
        return (request, replay(success, failure))
    }

    /// A transaction that writes is not sent again once it may have applied.
    private static func replay(_ success: [EtcdOperation], _ failure: [EtcdOperation]) -> EtcdReplay {
        success.contains(where: \.isWrite) || failure.contains(where: \.isWrite) ? .unsafe : .safe
    }
}
