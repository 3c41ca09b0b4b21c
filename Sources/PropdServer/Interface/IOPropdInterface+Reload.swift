import PropdCore
import PropdVarlink
import PropdWire

#if canImport(Glibc)
import Glibc
#endif

extension IOPropdInterface {
    /// `Reload() -> (revision, errors, applied?, refused?)`: what SIGHUP does,
    /// answered with what it did. Only root and the daemon's own user may
    /// ask (who may send the daemon SIGHUP); others get
    /// `org.varlink.service.PermissionDenied`.
    func reload(_ connection: VarlinkConnectionContext, _ responder: VarlinkResponder) {
        guard let runReload else { return responder.fail(VarlinkCallError.methodNotImplemented(IOPropdMethod.reload.qualifiedName)) }
        guard let peer = connection.peer, peer.uid == 0 || peer.uid == getuid() else {
            return responder.fail(VarlinkCallError.permissionDenied)
        }
        Task {
            let outcome = await runReload()
            responder.succeed(outcome.parameters)
        }
    }
}
