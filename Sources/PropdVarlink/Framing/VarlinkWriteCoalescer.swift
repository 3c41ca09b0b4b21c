import NIOCore
import PropdJSON

/// Outbound messages encoded into one buffer between two flushes: a burst
/// of pipelined replies leaves as one `write(2)`, not one per reply. A small
/// buffer is kept once handed down and cleared for the next burst, so a
/// connection that answers one call (or delivers one batch of events) at a
/// time allocates no buffer per burst.
///
/// Owned by whoever writes a connection's messages: the server's connection
/// handler, or ``VarlinkMessageEncoder`` in a client's pipeline.
struct VarlinkWriteCoalescer {
    private var pending: ByteBuffer?
    /// The last buffer handed down, while small. Its storage is shared with
    /// the channel until the socket has taken it; clearing a shared buffer
    /// gives it new storage, so a write still queued is never overwritten.
    private var spare: ByteBuffer?
    /// The largest buffer kept between bursts: room for the usual replies and
    /// events, while an idle connection holds at most this much.
    static let spareCapacityLimit = 1024
    /// The promise of the coalesced write; later promises are chained to it.
    private var pendingPromise: EventLoopPromise<Void>?
    private var scratch: [UInt8] = []
    /// A burst this long goes down unflushed in slices, so the channel's
    /// writability (what streams check for backpressure) sees it.
    static let coalescingLimit = 16 * 1024

    init() {
        scratch.reserveCapacity(256)
    }

    /// Whether messages are encoded and not yet taken.
    var hasPending: Bool { pending != nil }

    /// Encodes `message` after the pending ones; `promise` completes when
    /// the bytes are written. True when the burst has reached
    /// ``coalescingLimit`` and should be taken and written now.
    mutating func append(
        _ message: VarlinkOutboundMessage, promise: EventLoopPromise<Void>?, allocator: ByteBufferAllocator
    ) -> Bool {
        appending(capacity: Self.initialCapacity(for: message), promise: promise, allocator: allocator) {
            buffer, scratch in
            switch message {
            case .call(let call): VarlinkWireFormat.write(call, into: &buffer, scratch: &scratch)
            case .reply(let reply): VarlinkWireFormat.write(reply, into: &buffer, scratch: &scratch)
            case .frame(let bytes): buffer.writeBytes(bytes)
            case .encodableReply(let parameters):
                VarlinkWireFormat.writeReply(parameters, into: &buffer, scratch: &scratch)
            case .barrier: break
            }
        }
    }

    /// Encodes a reply with `parameters` after the pending messages, as
    /// ``append(_:promise:allocator:)`` would encode it as a message, without
    /// the box that message would put the parameters in.
    mutating func appendReply(_ parameters: any JSONObjectEncodable, allocator: ByteBufferAllocator) -> Bool {
        appending(capacity: Self.initialCapacity, promise: nil, allocator: allocator) { buffer, scratch in
            VarlinkWireFormat.writeReply(parameters, into: &buffer, scratch: &scratch)
        }
    }

    private mutating func appending(
        capacity: Int, promise: EventLoopPromise<Void>?, allocator: ByteBufferAllocator,
        _ write: (inout ByteBuffer, inout [UInt8]) -> Void
    ) -> Bool {
        var buffer = pending ?? freshBuffer(capacity: capacity, allocator: allocator)
        pending = nil  // keep the buffer uniquely referenced while appending
        write(&buffer, &scratch)
        pending = buffer
        if let promise {
            if let pendingPromise {
                pendingPromise.futureResult.cascade(to: promise)
            } else {
                pendingPromise = promise
            }
        }
        return buffer.readableBytes >= Self.coalescingLimit
    }

    /// The bytes encoded since the last take, with the promise to complete
    /// when they are written; nil when there are none.
    mutating func take() -> (bytes: ByteBuffer, promise: EventLoopPromise<Void>?)? {
        guard let buffer = pending else { return nil }
        let promise = pendingPromise
        pending = nil
        pendingPromise = nil
        spare = buffer.capacity <= Self.spareCapacityLimit ? buffer : nil
        return (buffer, promise)
    }

    /// Drops what was not taken: the connection is gone.
    mutating func discard() {
        pending = nil
        spare = nil
        pendingPromise?.fail(ChannelError.ioOnClosedChannel)
        pendingPromise = nil
    }

    /// The spare buffer, cleared, or a new one.
    private mutating func freshBuffer(capacity: Int, allocator: ByteBufferAllocator) -> ByteBuffer {
        guard var buffer = spare else { return allocator.buffer(capacity: capacity) }
        spare = nil
        buffer.clear(minimumCapacity: capacity)
        return buffer
    }

    /// A new buffer's size: room for the usual reply, or for the whole
    /// frame it starts with, so that it is not reallocated at once.
    private static func initialCapacity(for message: VarlinkOutboundMessage) -> Int {
        if case .frame(let bytes) = message { return max(initialCapacity, bytes.count) }
        return initialCapacity
    }

    private static let initialCapacity = 256
}
