import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// One client connection: splits the byte stream at NULs and answers each
/// call as `durable_set_server.c` does, with no JSON parser (the key and the
/// value are cut out of the frame). Its replies wait for the tick's commit.
final class FloorConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let batch: NIOLoopBound<SetBatch>
    private var context: ChannelHandlerContext?
    private var received: ByteBuffer?
    private var replies: ByteBuffer
    private(set) var hasQueuedReplies = false

    init(batch: NIOLoopBound<SetBatch>) {
        self.batch = batch
        self.replies = ByteBuffer()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        replies = context.channel.allocator.buffer(capacity: 1024)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        batch.value.unsubscribe(self)
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if var held = received {
            received = nil
            held.writeBuffer(&bytes)
            bytes = held
        }
        while let frameLength = bytes.withUnsafeReadableBytes({ Self.nul(in: $0) }) {
            bytes.withUnsafeReadableBytes { frame in
                handle(UnsafeRawBufferPointer(rebasing: frame[..<frameLength]))
            }
            bytes.moveReaderIndex(forwardBy: frameLength + 1)
        }
        if bytes.readableBytes > 0 { received = bytes }
    }

    private static func nul(in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress, let found = memchr(base, 0, bytes.count) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    private func handle(_ frame: UnsafeRawBufferPointer) {
        if Self.find("\"io.propd.Set\"", in: frame) != nil {
            guard let keyStart = Self.find("\"values\":{\"", in: frame).map({ $0 + 11 }),
                let keyEnd = Self.index(of: UInt8(ascii: "\""), in: frame, from: keyStart),
                let valueEnd = Self.index(of: UInt8(ascii: "}"), in: frame, from: keyEnd + 2)
            else { return }
            batch.value.set(
                key: UnsafeRawBufferPointer(rebasing: frame[keyStart..<keyEnd]),
                value: UnsafeRawBufferPointer(rebasing: frame[(keyEnd + 2)..<valueEnd]),
                from: self)
        } else if Self.find("\"io.propd.Subscribe\"", in: frame) != nil {
            batch.value.answer(self)
            let revision = batch.value.subscribe(self)
            replies.writeStaticString(#"{"parameters":{"event":{"kind":"synced","revision":"#)
            replies.writeDecimal(revision)
            replies.writeStaticString("}},\"continues\":true}\0")
            hasQueuedReplies = true
        } else if Self.find("\"org.varlink.service.GetInfo\"", in: frame) != nil {
            batch.value.answer(self)
            queue(#"{"parameters":{"vendor":"floor","product":"floor","version":"0","url":"","interfaces":[]}}"#)
        } else {
            batch.value.answer(self)
            queue(#"{"parameters":{"properties":[]}}"#)
        }
    }

    func queueRevisionReply(_ revision: Int64) {
        replies.writeStaticString(#"{"parameters":{"revision":"#)
        replies.writeDecimal(revision)
        replies.writeStaticString("}}\0")
        hasQueuedReplies = true
    }

    private func queue(_ text: StaticString) {
        replies.writeStaticString(text)
        replies.writeInteger(UInt8(0))
        hasQueuedReplies = true
    }

    func flushReplies() {
        guard hasQueuedReplies, let context else { return }
        hasQueuedReplies = false
        let out = replies
        replies = context.channel.allocator.buffer(capacity: 1024)
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)
    }

    /// A tick's events, to a subscriber.
    func send(_ events: ByteBuffer) {
        context?.writeAndFlush(wrapOutboundOut(events), promise: nil)
    }

    /// Where `needle` starts in `frame`: its first byte found by `memchr`,
    /// the rest compared by `memcmp` (glibc's `memmem` needs `_GNU_SOURCE`).
    private static func find(_ needle: StaticString, in frame: UnsafeRawBufferPointer) -> Int? {
        guard let base = frame.baseAddress else { return nil }
        let length = needle.utf8CodeUnitCount
        let first = Int32(needle.utf8Start.pointee)
        var offset = 0
        while offset + length <= frame.count, let found = memchr(base + offset, first, frame.count - offset - length + 1) {
            let at = base.distance(to: UnsafeRawPointer(found))
            if memcmp(found, needle.utf8Start, length) == 0 { return at }
            offset = at + 1
        }
        return nil
    }

    private static func index(of byte: UInt8, in frame: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < frame.count else { return nil }
        return frame[start...].firstIndex(of: byte)
    }
}
