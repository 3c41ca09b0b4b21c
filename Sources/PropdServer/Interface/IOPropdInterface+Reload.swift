import PropdCore
import PropdVarlink

#if canImport(Glibc)
import Glibc
#endif

extension IOPropdInterface {
    /// `Reload() -> (revision, errors, applied?, refused?)`: what SIGHUP does,
    /// answered with what it did. Only root and the daemon's own user may
    /// ask (who may send the daemon SIGHUP); others get
    /// `org.varlink.service.PermissionDenied`.
    func reload(_ connection: VarlinkConnectionContext, _ responder: VarlinkResponder) {
        guard let runReload else { return responder.fail(VarlinkCallError.methodNotImplemented("io.propd.Reload")) }
        guard let peer = connection.peer, peer.uid == 0 || peer.uid == getuid() else {
            return responder.fail(VarlinkCallError.permissionDenied)
        }
        Task {
            let outcome = await runReload()
            var reply: [String: JSONValue] = [
                "revision": .integer(outcome.revision.rawValue), "errors": .array(outcome.errors.map { .string($0) }),
            ]
            if !outcome.applied.isEmpty { reply["applied"] = .array(outcome.applied.map { .string($0) }) }
            if !outcome.refused.isEmpty { reply["refused"] = .array(outcome.refused.map { .string($0) }) }
            responder.succeed(reply)
        }
    }
}
