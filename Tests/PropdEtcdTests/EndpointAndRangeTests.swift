import PropdEtcd
import Testing

/// What needs no etcd: parsing client URLs and computing prefix ranges.
@Suite struct EndpointAndRangeTests {
    @Test func prefixRangeEndsAfterTheLastKeyWithThePrefix() {
        #expect(EtcdKeyRange.prefix([0x61, 0x62]).rangeEnd == [0x61, 0x63])
        #expect(EtcdKeyRange.prefix([0x61, 0xff]).rangeEnd == [0x62])
        #expect(EtcdKeyRange.prefix([0xff, 0xff]).rangeEnd == [0])
    }

    @Test func endpointsParseAndBadOnesAreNamed() throws {
        let endpoints = try EtcdEndpoint.list("http://h1:2379, http://10.0.0.2:12379,http://[::1]:2379,http://h4")
        #expect(endpoints == [
            EtcdEndpoint(host: "h1", port: 2379), EtcdEndpoint(host: "10.0.0.2", port: 12379),
            EtcdEndpoint(host: "::1", port: 2379), EtcdEndpoint(host: "h4", port: 2379),
        ])
        for bad in ["https://h1:2379", "h1:2379", "http://h1:notaport", "http://:2379", "http://h1:70000", ""] {
            #expect(throws: EtcdError.self, "\(bad)") { try EtcdEndpoint.list(bad) }
        }
    }
}
