/// What a call does to a key. `write` implies `read`: a client that may set a
/// key may also see it (it needs the key's revision for `expect`, and Set's
/// effect is visible in its own reply anyway).
public enum AccessMode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case read
    case write

    public var description: String { rawValue }
}
