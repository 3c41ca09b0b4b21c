@testable import PropdClient
import PropdCore
import PropdVarlink
import PropdWire
import Testing

/// PropdClient's errors are io.propd's, read back with their parameters.
@Suite struct ClientErrorTests {
    @Test(arguments: WireSamples.errors)
    func everyErrorReachesTheClientWithItsParameters(error: IOPropdError) {
        let client = PropdClientError(VarlinkCallError(name: error.qualifiedName, parameters: error.parameters))
        #expect(client == .refused(error))
        #expect(client.name == error.qualifiedName)
        #expect(client.description == error.description)
        #expect(!client.isUnreachable)
    }

    @Test func aPermissionRefusalWithoutKeyIsOneError() {
        let service = PropdClientError(VarlinkCallError.permissionDenied)
        let keyless = PropdClientError(VarlinkCallError(name: "io.propd.PermissionDenied"))
        #expect(service == .permissionDenied)
        #expect(keyless == .permissionDenied)
        #expect(service.name == "io.propd.PermissionDenied")
        #expect(service.description == "permission denied")
    }

    @Test func anErrorIOPropdDoesNotDeclareKeepsItsNameAndParameters() {
        let parameters: [String: JSONValue] = ["parameter": "since", "reason": "beyond the newest revision"]
        let client = PropdClientError(VarlinkCallError(name: "org.varlink.service.InvalidParameter", parameters: parameters))
        #expect(client == .other(name: "org.varlink.service.InvalidParameter", parameters: parameters))
        #expect(client.description == "invalid since: beyond the newest revision")
        #expect(PropdClientError(VarlinkCallError(name: "io.propd.NoSuchThing")) == .other(name: "io.propd.NoSuchThing", parameters: [:]))
    }

    @Test func connectionFailuresAreUnreachable() {
        #expect(PropdClientError.cannotConnect(path: "/run/propd.sock", reason: "ENOENT").isUnreachable)
        #expect(PropdClientError.connectionClosed(path: "/run/propd.sock", reason: "EOF").isUnreachable)
        #expect(!PropdClientError.malformedReply("not JSON").isUnreachable)
    }
}
