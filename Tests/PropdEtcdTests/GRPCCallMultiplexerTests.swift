import GRPCCore
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import PropdEtcd

/// How a call ends when its stream or its connection does, against
/// swift-nio-http2's server: whether the request may have applied decides
/// whether the writer looks its outcome up or sends it again.
struct GRPCCallMultiplexerTests {
    @Test func aReplyReachesItsCall() throws {
        let link = try Link()
        let call = link.start()
        try link.shuttle()
        try link.reply(on: 1, with: "reply", status: "0")
        #expect(try call.value()?.get() == ByteBuffer(string: "reply"))
    }

    @Test func callsAboveAGoAwaysLastStreamFailAsNeverSentAndTheOthersFinish() throws {
        let link = try Link()
        let (kept, dropped) = (link.start(), link.start())
        try link.shuttle()
        try link.peer.send(.goAway(lastStreamID: 1, errorCode: .noError, opaqueData: nil), on: .rootStream)
        try link.shuttle()
        #expect(link.failure(of: dropped)?.message == GRPCCallMultiplexer.neverSent.message)
        #expect(kept.value() == nil)
        #expect(link.calls.acceptsCalls == false)

        try link.reply(on: 1, with: "kept", status: "0")
        #expect(try kept.value()?.get() == ByteBuffer(string: "kept"))
        #expect(link.client.isActive == false)  // closed with its last call
    }

    @Test func aRefusedStreamWasNeverSentAndACancelledOneMayHaveApplied() throws {
        let link = try Link()
        let (refused, cancelled) = (link.start(), link.start())
        try link.shuttle()
        try link.peer.send(.rstStream(.refusedStream), on: 1)
        try link.peer.send(.rstStream(.cancel), on: 3)
        try link.shuttle()
        #expect(link.failure(of: refused)?.message == GRPCCallMultiplexer.neverSent.message)
        #expect(link.failure(of: cancelled)?.message == "Stream unexpectedly closed.")
        #expect(link.calls.acceptsCalls)
    }

    @Test func aStreamEndedWithoutAStatusMayHaveApplied() throws {
        let link = try Link()
        let call = link.start()
        try link.shuttle()
        try link.peer.send(.headers(.init(headers: [":status": "200"])), on: 1)
        try link.peer.send(.data(.init(data: .byteBuffer(ByteBuffer(string: "cut")), endStream: true)), on: 1)
        try link.shuttle()
        #expect(link.failure(of: call)?.message == "Stream unexpectedly closed.")
    }

    @Test func aServerThatBreaksHTTP2FailsEveryCallAndIsToldWhy() throws {
        let link = try Link()
        let calls = [link.start(), link.start()]
        try link.shuttle()
        try link.client.writeInbound(handWrittenFrame(.pushPromise, flags: 0, stream: 1, ByteBuffer(repeating: 0, count: 4)))
        for call in calls {
            let failure = link.failure(of: call)
            #expect(failure?.code == .unavailable)
            #expect(failure?.message.contains("PUSH_PROMISE") == true)
        }
        var written = ByteBuffer()
        while var bytes = try link.client.readOutbound(as: ByteBuffer.self) { written.writeBuffer(&bytes) }
        try link.peer.receive(&written)
        let goAway = link.peer.frames().compactMap { frame -> HTTP2ErrorCode? in
            if case .goAway(_, let code, _) = frame.payload { return code }
            return nil
        }
        #expect(goAway == [.protocolError])
        #expect(link.client.isActive == false)
    }

    @Test func aNonOKStatusFailsTheCallWithItsCodeAndMessage() throws {
        let link = try Link()
        let call = link.start()
        try link.shuttle()
        try link.peer.send(
            .headers(.init(headers: [":status": "200", "grpc-status": "9", "grpc-message": "etcdserver:%20too%20many"], endStream: true)),
            on: 1)
        try link.shuttle()
        let failure = link.failure(of: call)
        #expect(failure?.code == .failedPrecondition)
        #expect(failure?.message == "etcdserver: too many")
    }
}

/// A ``GRPCCallMultiplexer`` on one embedded channel, swift-nio-http2's
/// server on another, and the bytes between them moved by hand.
private final class Link {
    let loop = EmbeddedEventLoop()
    let client: EmbeddedChannel
    let calls: GRPCCallMultiplexer
    let peer: ServerPeer

    init() throws {
        client = EmbeddedChannel(loop: loop)
        calls = GRPCCallMultiplexer(timeout: .seconds(60), on: loop)
        try client.pipeline.syncOperations.addHandler(calls)
        try client.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2379)).wait()
        peer = try ServerPeer()
    }

    /// Starts a unary call; its outcome once it has one.
    func start() -> Outcome {
        let outcome = Outcome()
        calls.start(headers: Self.request, message: Array("request".utf8)).assumeIsolated().whenComplete { outcome.result = $0 }
        return outcome
    }

    /// Moves bytes both ways until neither side has more to say.
    func shuttle() throws {
        while true {
            loop.run()
            var moved = false
            while var bytes = try client.readOutbound(as: ByteBuffer.self) {
                try peer.receive(&bytes)
                moved = true
            }
            let answer = try peer.sent()
            if answer.readableBytes > 0 {
                try client.writeInbound(answer)
                moved = true
            }
            if !moved { return }
        }
    }

    /// The server answers stream `stream` with one message and `status`.
    func reply(on stream: HTTP2StreamID, with text: String, status: String) throws {
        var message = ByteBuffer(integer: UInt8(0))
        message.writeInteger(UInt32(text.utf8.count))
        message.writeString(text)
        try peer.send(.headers(.init(headers: [":status": "200", "content-type": "application/grpc"])), on: stream)
        try peer.send(.data(.init(data: .byteBuffer(message))), on: stream)
        try peer.send(.headers(.init(headers: ["grpc-status": status], endStream: true)), on: stream)
        try shuttle()
    }

    func failure(of outcome: Outcome) -> RPCError? {
        guard case .failure(let error) = outcome.result else { return nil }
        return error as? RPCError
    }

    private static let request: HPACKHeaders = [
        ":method": "POST", ":scheme": "http", ":path": "/etcdserverpb.KV/Range", ":authority": "127.0.0.1:2379",
        "content-type": "application/grpc", "te": "trailers",
    ]

    final class Outcome {
        var result: Result<ByteBuffer, any Error>?

        func value() -> Result<ByteBuffer, any Error>? {
            if case .success = result { return result }
            return nil
        }
    }
}
