public import PropdCore

/// What one reload (SIGHUP or the `Reload` call) did: the revision it
/// committed, the errors it reported as `FILE:LINE:COLUMN: message`, and the
/// settings it applied live or refused (they need a restart).
public struct ReloadOutcome: Sendable, Equatable {
    public var revision: Revision
    public var errors: [String]
    public var applied: [String]
    public var refused: [String]

    public init(revision: Revision, errors: [String] = [], applied: [String] = [], refused: [String] = []) {
        self.revision = revision
        self.errors = errors
        self.applied = applied
        self.refused = refused
    }
}
