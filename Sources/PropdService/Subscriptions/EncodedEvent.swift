public import PropdCore
import Synchronization

/// Turns an event into the bytes a subscriber is sent (for the Varlink layer:
/// the whole reply frame, `{"parameters":{"event":…},"continues":true}` and its NUL).
public typealias EventEncoder = @Sendable (Event) -> [UInt8]

/// One event and its encoding, shared by every subscriber it is delivered to:
/// an event is encoded once however many subscribers receive it.
///
/// Lazily by default: the bytes are produced the first time any subscriber
/// asks for them, on that subscriber's thread (not the writer's), and never
/// when nobody reads them (a coalesced-away event, a cancelled subscriber).
/// When the hub bounds queues in bytes it encodes each event once as it is
/// queued, since the size must then be known.
public final class EncodedEvent: Sendable {
    public let event: Event
    private let encoder: EventEncoder
    /// The bytes, when encoded at creation (the hub does so when it bounds
    /// queues in bytes): then no lock is needed to read them.
    private let eager: [UInt8]?
    private let cache = Mutex<[UInt8]?>(nil)

    /// An event to be encoded by `encoder` on first use, or at once when `eagerly`.
    public init(_ event: Event, encoder: @escaping EventEncoder, eagerly: Bool = false) {
        self.event = event
        self.encoder = encoder
        eager = eagerly ? encoder(event) : nil
    }

    /// The encoded event; encodes on first use.
    public var bytes: [UInt8] {
        if let eager { return eager }
        return cache.withLock { cached in
            if let bytes = cached { return bytes }
            let bytes = encoder(event)
            cached = bytes
            return bytes
        }
    }

    /// The number of encoded bytes; encodes on first use.
    public var size: Int {
        if let eager { return eager.count }
        return bytes.count
    }

    /// Whether the bytes were already produced (for tests and statistics).
    public var isEncoded: Bool { eager != nil || cache.withLock { $0 != nil } }
}
