import PropdCore

/// What one node of a binding's stream produces in one evaluation: at most
/// one thing per revision.
enum Emission: Sendable, Equatable {
    /// Nothing new: the property keeps its value.
    case nothing
    case value(JSONValue)
    /// An evaluation error; the property keeps its value and shows the message.
    case error(String)
    /// A source key was deleted: combineLatest waits again; elsewhere it is nothing.
    case deleted
}
