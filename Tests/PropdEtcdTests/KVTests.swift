import PropdEtcd
import Testing

extension EtcdClusterTests {
    @Suite struct KVTests {
        @Test func putRangeDeleteOnARealCluster() async throws {
            try await withCluster { _, etcd in
                let first = try await etcd.put("/kv/a".bytes, "1".bytes)
                let second = try await etcd.put("/kv/b".bytes, "2".bytes)
                let third = try await etcd.put("/kv/a".bytes, "3".bytes, returnPrevious: true)
                #expect(second.revision == first.revision + 1)
                #expect(third.revision == second.revision + 1)
                #expect(third.previous?.value == "1".bytes)

                let all = try await etcd.range(.prefix("/kv/".bytes))
                #expect(all.keyValues.map(\.key.string) == ["/kv/a", "/kv/b"])
                #expect(all.keyValues.map(\.value.string) == ["3", "2"])
                let a = try #require(all.keyValues.first)
                #expect(a.createRevision == first.revision)
                #expect(a.modRevision == third.revision)
                #expect(a.version == 2)
                #expect(all.revision == third.revision)

                // History: the value at the first write's revision.
                let old = try await etcd.range(.key("/kv/a".bytes), revision: first.revision)
                #expect(old.keyValues.map(\.value.string) == ["1"])

                let limited = try await etcd.range(.prefix("/kv/".bytes), limit: 1)
                #expect(limited.keyValues.count == 1 && limited.more && limited.count == 2)

                let deleted = try await etcd.delete(.prefix("/kv/".bytes), returnPrevious: true)
                #expect(deleted.deleted == 2)
                #expect(deleted.revision == third.revision + 1)
                #expect(Set(deleted.previous.map(\.key.string)) == ["/kv/a", "/kv/b"])
                #expect(try await etcd.range(.prefix("/kv/".bytes)).keyValues.isEmpty)

                // Deleting nothing writes nothing.
                let none = try await etcd.delete(.key("/kv/none".bytes))
                #expect(none.deleted == 0 && none.revision == deleted.revision)
            }
        }

        @Test func aCompactedRevisionIsATypedError() async throws {
            try await withCluster { _, etcd in
                let first = try await etcd.put("/c/a".bytes, "1".bytes)
                let second = try await etcd.put("/c/a".bytes, "2".bytes)
                try await etcd.compact(upTo: second.revision)
                // Asked again (as after an attempt that timed out): done already, no error.
                try await etcd.compact(upTo: second.revision)
                try await etcd.compact(upTo: first.revision)
                let error = await #expect(throws: EtcdError.self) {
                    try await etcd.range(.key("/c/a".bytes), revision: first.revision)
                }
                #expect(error?.code == .compacted)
                let future = await #expect(throws: EtcdError.self) {
                    try await etcd.range(.key("/c/a".bytes), revision: second.revision + 100)
                }
                #expect(future?.code == .futureRevision)
            }
        }
    }
}
