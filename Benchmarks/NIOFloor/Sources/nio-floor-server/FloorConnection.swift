import FloorFrames
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
        while let frameLength = bytes.withUnsafeReadableBytes({ $0.index(of: 0, from: 0) }) {
            bytes.withUnsafeReadableBytes { frame in
                handle(UnsafeRawBufferPointer(rebasing: frame[..<frameLength]))
            }
            bytes.moveReaderIndex(forwardBy: frameLength + 1)
        }
        if bytes.readableBytes > 0 { received = bytes }
    }

    private func handle(_ frame: UnsafeRawBufferPointer) {
        if frame.find("\"io.propd.Set\"") != nil {
            guard let keyStart = frame.find("\"values\":{\"").map({ $0 + 11 }),
                let keyEnd = frame.index(of: UInt8(ascii: "\""), from: keyStart),
                let valueEnd = frame.index(of: UInt8(ascii: "}"), from: keyEnd + 2)
            else { return }
            batch.value.set(
                key: UnsafeRawBufferPointer(rebasing: frame[keyStart..<keyEnd]),
                value: UnsafeRawBufferPointer(rebasing: frame[(keyEnd + 2)..<valueEnd]),
                from: self)
        } else if frame.find("\"io.propd.Subscribe\"") != nil {
            batch.value.answer(self)
            let revision = batch.value.subscribe(self)
            replies.writeStaticString(#"{"parameters":{"event":{"kind":"synced","revision":"#)
            replies.writeDecimal(revision)
            replies.writeStaticString("}},\"continues\":true}\0")
            hasQueuedReplies = true
        } else if frame.find("\"org.varlink.service.GetInfo\"") != nil {
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
}
