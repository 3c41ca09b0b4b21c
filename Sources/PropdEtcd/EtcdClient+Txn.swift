import EtcdAPI

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
        var request = Etcdserverpb_TxnRequest()
        request.compare = compares.map(\.message)
        request.success = success.map(\.message)
        request.failure = failure.map(\.message)
        let writes = success.contains(where: \.isWrite) || failure.contains(where: \.isWrite)
        return try await withFailover(writes ? .unsafe : .safe, member: { member in
            EtcdTxnResult(try await member.gateway.txn(request))
        })
    }
}
