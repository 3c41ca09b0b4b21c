import PropdClient
import PropdWire
import Testing

/// PropdClient's errors are io.propd's, read back with their parameters.
@Suite struct ClientErrorTests {
    @Test(arguments: WireSamples.errors)
    func everyErrorReachesTheClientWithItsParameters(error: IOPropdError) {
        let client = PropdClientError(error)
        #expect(client.refusal == error)
        #expect(client.name == error.qualifiedName)
        #expect(!client.isUnreachable)
    }

    @Test func connectionFailuresAreNoRefusal() {
        #expect(PropdClientError.cannotConnect(path: "/run/propd.sock", reason: "ENOENT").refusal == nil)
        #expect(PropdClientError.other(name: "org.varlink.service.InvalidParameter", parameters: [:]).refusal == nil)
        #expect(PropdClientError.permissionDenied(key: nil).refusal == nil)
        #expect(PropdClientError.permissionDenied(key: nil).name == "io.propd.PermissionDenied")
    }
}
