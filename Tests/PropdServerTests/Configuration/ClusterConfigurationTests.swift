import PropdEtcd
import PropdServer
import Testing

/// Cluster mode from `--etcd`/`--etcd-prefix` and the config file's `cluster:`.
@Suite struct ClusterConfigurationTests {
    let user: [String: String] = ["HOME": "/home/ada", "XDG_RUNTIME_DIR": "/run/user/1000"]
    let directory = FakeAccountDirectory()

    func resolve(_ flags: DaemonFlags, file: String? = nil) throws(ConfigurationError) -> DaemonConfiguration {
        try DaemonConfiguration.resolve(
            environment: user, uid: 1000, flags: flags,
            file: file.map { ConfigurationText(path: "/c.conf", text: $0) }, directory: directory)
    }

    @Test func standaloneUnlessAsked() throws {
        #expect(try resolve(DaemonFlags()).cluster == nil)
    }

    @Test func flagsGiveEndpointsAndPrefix() throws {
        let config = try resolve(DaemonFlags(etcd: "http://h1:2379,http://h2:2379", etcdPrefix: "/propd/site"))
        #expect(config.cluster?.endpoints == [EtcdEndpoint(host: "h1", port: 2379), EtcdEndpoint(host: "h2", port: 2379)])
        #expect(config.cluster?.prefix == "/propd/site")
        #expect(try resolve(DaemonFlags(etcd: "http://h1:2379")).cluster?.prefix == ClusterSettings.defaultPrefix)
    }

    @Test func theFileSectionAndFlagsOverIt() throws {
        let file = "cluster:\n  etcd: [\"http://a:2379\", \"http://b:2379\"]\n  prefix: /propd/file\n"
        let fromFile = try resolve(DaemonFlags(), file: file)
        #expect(fromFile.cluster == ClusterSettings(
            endpoints: [EtcdEndpoint(host: "a", port: 2379), EtcdEndpoint(host: "b", port: 2379)], prefix: "/propd/file"))
        let overridden = try resolve(DaemonFlags(etcd: "http://c:2379", etcdPrefix: "/propd/flag"), file: file)
        #expect(overridden.cluster == ClusterSettings(endpoints: [EtcdEndpoint(host: "c", port: 2379)], prefix: "/propd/flag"))
        // A prefix flag alone keeps the file's endpoints.
        #expect(try resolve(DaemonFlags(etcdPrefix: "/propd/x"), file: file).cluster?.endpoints.count == 2)
    }

    /// The leases' time to live: 5 s unless `cluster.lease` or `--etcd-lease`
    /// says otherwise, the flag over the file.
    @Test func theLeaseFromTheFileAndTheFlag() throws {
        #expect(try resolve(DaemonFlags(etcd: "http://h1:2379")).cluster?.leaseSeconds == 5)
        #expect(try resolve(DaemonFlags(etcd: "http://h1:2379", etcdLease: 12)).cluster?.leaseSeconds == 12)
        let file = "cluster:\n  etcd: [\"http://a:2379\"]\n  lease: 9\n"
        #expect(try resolve(DaemonFlags(), file: file).cluster?.leaseSeconds == 9)
        // --etcd over the file keeps the file's lease; --etcd-lease replaces it.
        #expect(try resolve(DaemonFlags(etcd: "http://c:2379"), file: file).cluster?.leaseSeconds == 9)
        #expect(try resolve(DaemonFlags(etcdLease: 3), file: file).cluster
            == ClusterSettings(endpoints: [EtcdEndpoint(host: "a", port: 2379)], leaseSeconds: 3))
    }

    @Test func aBadLeaseIsRefusedByName() throws {
        func flagFailure(_ flags: DaemonFlags) -> String? {
            do throws(ConfigurationError) {
                _ = try resolve(flags)
                return nil
            } catch {
                guard case .invalidFlag(let flag, let value, let reason) = error.problem else { return "\(error)" }
                return "\(flag) \(value) \(reason)"
            }
        }
        #expect(flagFailure(DaemonFlags(etcd: "http://h:1", etcdLease: 0)) == "--etcd-lease 0 is out of range; expected 1...3600 seconds")
        #expect(flagFailure(DaemonFlags(etcd: "http://h:1", etcdLease: 3601)) == "--etcd-lease 3601 is out of range; expected 1...3600 seconds")
        #expect(flagFailure(DaemonFlags(etcdLease: 5)) == "--etcd-lease 5 needs --etcd (or cluster.etcd in the config file)")

        func fileProblem(_ lease: String) -> ConfigurationError.Problem? {
            do throws(ConfigurationError) {
                _ = try ConfigurationFile.parse("cluster:\n  etcd: [\"http://a:2379\"]\n  lease: \(lease)\n", path: "/c.conf", directory: directory)
                return nil
            } catch {
                #expect(error.line == 3, "the lease's line")
                return error.problem
            }
        }
        guard case .invalidValue("cluster.lease", "0", _)? = fileProblem("0") else {
            Issue.record("a zero lease is refused: \(String(describing: fileProblem("0")))")
            return
        }
        guard case .invalidValue("cluster.lease", "3601", _)? = fileProblem("3601") else {
            Issue.record("a lease of more than an hour is refused")
            return
        }
        guard case .wrongType("cluster.lease", "an integer", _)? = fileProblem("5s") else {
            Issue.record("a lease with a unit is refused: \(String(describing: fileProblem("5s")))")
            return
        }
    }

    @Test func badInputIsRefusedByName() throws {
        func flagFailure(_ flags: DaemonFlags) -> String? {
            do throws(ConfigurationError) {
                _ = try resolve(flags)
                return nil
            } catch {
                guard case .invalidFlag(let flag, _, let reason) = error.problem else { return "\(error)" }
                return "\(flag) \(reason)"
            }
        }
        #expect(flagFailure(DaemonFlags(etcd: "ftp://h1")).map { $0.hasPrefix("--etcd is not a list of etcd URLs") } == true)
        #expect(flagFailure(DaemonFlags(etcd: "")).map { $0.hasPrefix("--etcd ") } == true)
        #expect(flagFailure(DaemonFlags(etcdPrefix: "/p")) == "--etcd-prefix needs --etcd (or cluster.etcd in the config file)")
        #expect(flagFailure(DaemonFlags(etcd: "http://h:1", etcdPrefix: "p")).map { $0.hasPrefix("--etcd-prefix is not an etcd key prefix") } == true)

        func fileFailure(_ text: String) -> ConfigurationError? {
            #expect(throws: ConfigurationError.self) { try ConfigurationFile.parse(text, path: "/c.conf", directory: directory) }
        }
        let missing = fileFailure("cluster:\n  prefix: /p\n")
        guard case .missingKey(let key, in: "cluster")? = missing?.problem else {
            Issue.record("got \(String(describing: missing))")
            return
        }
        #expect(key.hasPrefix("etcd"))
        let badURL = fileFailure("cluster:\n  etcd: [\"http://a:2379\", \"a b\"]\n")
        #expect(badURL?.line == 2)
        guard case .invalidValue("cluster.etcd[1]", "a b", _)? = badURL?.problem else {
            Issue.record("got \(String(describing: badURL))")
            return
        }
        guard case .unknownKey("endpoints", _)? = fileFailure("cluster:\n  endpoints: [\"http://a:2379\"]\n")?.problem else {
            Issue.record("an unknown key in cluster: is refused")
            return
        }
    }
}
