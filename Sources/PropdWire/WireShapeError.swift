/// A reply that does not have the shape io.propd declares: a field missing
/// or of the wrong type. `message` names what was wrong (`missing string 'key'`).
public struct WireShapeError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
