import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import PropdEtcd

/// The client's HTTP/2 against swift-nio-http2's server, an implementation
/// of its own that checks every frame and stream state it receives, and
/// against frames written by hand for what a server must not send.
struct HTTP2ClientSessionTests {
    // MARK: Against swift-nio-http2's server

    @Test func aCallsFramesAreTheOnesAServerExpectsAndItsReplyComesBackAsEvents() throws {
        let peer = try ServerPeer()
        var client = HTTP2ClientSession(receiveWindow: 1 << 20, allocator: .init())
        var out = ByteBuffer()
        client.start(into: &out)
        try client.writeHeaders(Self.request, streamID: 1, into: &out)
        client.writeData(ByteBuffer(string: "request"), streamID: 1, endStream: true, into: &out)
        try peer.receive(&out)
        #expect(try client.read(peer.sent(), replies: &out) == [])  // the server's SETTINGS, acknowledged in `out`
        try peer.receive(&out)

        let frames = peer.frames()
        let headers = try #require(frames.compactMap { frame -> HPACKHeaders? in
            if case .headers(let headers) = frame.payload { return headers.headers }
            return nil
        }.first)
        #expect(headers[":path"] == ["/etcdserverpb.KV/Txn"])
        #expect(headers["te"] == ["trailers"])
        #expect(peer.data(on: 1) == ("request", true))
        #expect(frames.contains { if case .settings(.ack) = $0.payload { true } else { false } })

        try peer.send(.headers(.init(headers: [":status": "200", "content-type": "application/grpc"])), on: 1)
        try peer.send(.data(.init(data: .byteBuffer(ByteBuffer(string: "reply")))), on: 1)
        try peer.send(.headers(.init(headers: ["grpc-status": "0"], endStream: true)), on: 1)
        let events = try client.read(peer.sent())
        #expect(events.count == 3)
        #expect(events.dropFirst().first == .data(streamID: 1, ByteBuffer(string: "reply"), endStream: false))
        #expect(events.last == .headers(streamID: 1, ["grpc-status": "0"], endStream: true))
    }

    @Test func thePeersPingIsAnsweredWithItsData() throws {
        let peer = try ServerPeer()
        var client = try Self.client(openedOn: peer)
        try peer.send(.ping(HTTP2PingData(withInteger: 0x1234_5678_9abc), ack: false), on: .rootStream)
        var out = ByteBuffer()
        client.receive(try peer.sent())
        #expect(try client.nextEvent(into: &out) == nil)
        try peer.receive(&out)
        let ack = peer.frames().compactMap { frame -> HTTP2PingData? in
            if case .ping(let data, ack: true) = frame.payload { return data }
            return nil
        }
        #expect(ack == [HTTP2PingData(withInteger: 0x1234_5678_9abc)])
    }

    @Test func aRequestLargerThanTheServersWindowWaitsForItAndIsSplitAtItsFrameSize() throws {
        let peer = try ServerPeer(settings: [HTTP2Setting(parameter: .initialWindowSize, value: 20_000)])
        var client = try Self.client(openedOn: peer)
        let message = ByteBuffer(repeating: 0x61, count: 80_000)
        var out = ByteBuffer()
        client.writeData(message, streamID: 1, endStream: true, into: &out)
        try peer.receive(&out)
        // 16,384 (the frame size), then 3,616 to fill the stream's window of 20,000.
        #expect(peer.dataFrameLengths(on: 1) == [16_384, 3_616])
        #expect(peer.data(on: 1).endStream == false)

        #expect(try Self.dataSent(afterOpening: 1, by: 10_000, peer, &client) == [10_000])

        // The connection's window (65,535 at the start, 30,000 of it used)
        // now stops it at 35,535, short of the stream's 40,000.
        #expect(try Self.dataSent(afterOpening: 1, by: 40_000, peer, &client) == [16_384, 16_384, 2_767])
        // Then the stream's window stops it: 4,465 left of its 40,000.
        #expect(try Self.dataSent(afterOpening: .rootStream, by: 100_000, peer, &client) == [4_465])
        #expect(try Self.dataSent(afterOpening: 1, by: 10_000, peer, &client) == [10_000])
        #expect(peer.receivedData[1]?.count == 80_000)
        #expect(peer.data(on: 1).endStream)
    }

    @Test func aSmallerInitialWindowFromTheServerHoldsBackStreamsAlreadyOpen() throws {
        let peer = try ServerPeer()
        var client = try Self.client(openedOn: peer)
        var out = ByteBuffer()
        client.writeData(ByteBuffer(repeating: 0x61, count: 30), streamID: 1, endStream: false, into: &out)
        try peer.receive(&out)
        #expect(peer.dataFrameLengths(on: 1) == [30])
        // The server lowers every stream's window to 10 bytes: stream 1, 30
        // bytes into it, is 20 below zero.
        try peer.changeSettings([HTTP2Setting(parameter: .initialWindowSize, value: 10)])
        #expect(try client.read(peer.sent(), replies: &out) == [])
        try peer.receive(&out)
        client.writeData(ByteBuffer(repeating: 0x62, count: 25), streamID: 1, endStream: false, into: &out)
        try peer.receive(&out)
        #expect(peer.dataFrameLengths(on: 1) == [])
        #expect(try Self.dataSent(afterOpening: 1, by: 30, peer, &client) == [10])
        #expect(try Self.dataSent(afterOpening: 1, by: 15, peer, &client) == [15])
    }

    @Test func readingHalfTheWindowGivesItBack() throws {
        let peer = try ServerPeer()
        var client = try Self.client(openedOn: peer, receiveWindow: 65_536)
        try peer.send(.headers(.init(headers: [":status": "200"])), on: 1)
        for _ in 0..<2 {
            try peer.send(.data(.init(data: .byteBuffer(ByteBuffer(repeating: 1, count: 16_384)))), on: 1)
        }
        var out = ByteBuffer()
        #expect(try client.read(peer.sent(), replies: &out).count == 3)
        try peer.receive(&out)
        let updates = peer.frames().compactMap { frame -> (Int, Int)? in
            if case .windowUpdate(let increment) = frame.payload { return (Int(frame.streamID), increment) }
            return nil
        }
        #expect(updates.map(\.0) == [0, 1] && updates.map(\.1) == [32_768, 32_768])
    }

    @Test func aGoAwayAndAResetReachTheirCalls() throws {
        let peer = try ServerPeer()
        var client = try Self.client(openedOn: peer)
        try peer.send(.rstStream(.refusedStream), on: 1)
        try peer.send(.goAway(lastStreamID: 1, errorCode: .noError, opaqueData: nil), on: .rootStream)
        #expect(try client.read(peer.sent()) == [
            .reset(streamID: 1, code: HTTP2Wire.ErrorCode.refusedStream.rawValue),
            .goAway(lastStreamID: 1, code: 0),
        ])
    }

    // MARK: What a server must not send

    @Test func aHeaderBlockSplitOverContinuationFramesIsReadWhole() throws {
        var client = try Self.clientPastSettings()
        var block = ByteBuffer()
        var encoder = HPACKEncoder(allocator: .init())
        try encoder.encode(headers: [":status": "200", "x-long": String(repeating: "v", count: 100)], to: &block)
        let first = block.readSlice(length: 40) ?? ByteBuffer()
        var bytes = handWrittenFrame(.headers, flags: 0, stream: 1, first)
        bytes.writeImmutableBuffer(handWrittenFrame(.continuation, flags: HTTP2Wire.Flag.endHeaders, stream: 1, block))
        let events = try client.read(bytes)
        #expect(events == [.headers(streamID: 1, [":status": "200", "x-long": String(repeating: "v", count: 100)], endStream: false)])
    }

    @Test func everyFrameTheServerMustNotSendBreaksTheConnectionByName() throws {
        let headers = handWrittenFrame(.headers, flags: 0, stream: 1, ByteBuffer(bytes: [0x88]))
        let cases: [(String, ByteBuffer, HTTP2ConnectionError)] = [
            ("a frame over 16,384 bytes", handWrittenFrame(.data, flags: 0, stream: 1, ByteBuffer(repeating: 0, count: 16_385)),
             .frameTooLarge(type: 0, length: 16_385)),
            ("a DATA frame on stream 0", handWrittenFrame(.data, flags: 0, stream: 0, ByteBuffer()),
             .malformedFrame(type: 0, "DATA on stream 0")),
            ("padding longer than its frame", handWrittenFrame(.data, flags: HTTP2Wire.Flag.padded, stream: 1, ByteBuffer(bytes: [9, 1])),
             .malformedFrame(type: 0, "padding longer than the frame")),
            ("a SETTINGS frame of 5 bytes", handWrittenFrame(.settings, flags: 0, stream: 0, ByteBuffer(repeating: 0, count: 5)),
             .malformedFrame(type: 4, "SETTINGS of 5 bytes")),
            ("a stream window past 2³¹ − 1", Self.settings([(.initialWindowSize, 1 << 31)]),
             .flowControl("SETTINGS_INITIAL_WINDOW_SIZE 2147483648")),
            ("a frame size below 16,384", Self.settings([(.maxFrameSize, 100)]),
             .malformedFrame(type: 4, "SETTINGS_MAX_FRAME_SIZE 100")),
            ("a PING of 4 bytes", handWrittenFrame(.ping, flags: 0, stream: 0, ByteBuffer(repeating: 0, count: 4)),
             .malformedFrame(type: 6, "PING of 4 bytes on stream 0")),
            ("a PUSH_PROMISE", handWrittenFrame(.pushPromise, flags: 0, stream: 1, ByteBuffer(repeating: 0, count: 4)), .pushRefused),
            ("a connection window past 2³¹ − 1", handWrittenFrame(.windowUpdate, flags: 0, stream: 0, ByteBuffer(integer: UInt32(Int32.max))),
             .flowControl("the connection's window past 2³¹ − 1")),
            ("a zero increment to the connection", handWrittenFrame(.windowUpdate, flags: 0, stream: 0, ByteBuffer(integer: UInt32(0))),
             .malformedFrame(type: 8, "a zero increment")),
            ("a PING inside a header block", headers + handWrittenFrame(.ping, flags: 0, stream: 0, ByteBuffer(repeating: 0, count: 8)),
             .headerBlockInterrupted(type: 6)),
            ("a CONTINUATION with no block open", handWrittenFrame(.continuation, flags: HTTP2Wire.Flag.endHeaders, stream: 1, ByteBuffer()),
             .headerBlockInterrupted(type: 9)),
        ]
        for (name, bytes, expected) in cases {
            var client = try Self.clientPastSettings()
            #expect(throws: expected, "\(name)") { try client.read(bytes) }
        }
        var unread = HTTP2ClientSession(receiveWindow: 1 << 20, allocator: .init())
        #expect(throws: HTTP2ConnectionError.prefaceMissing) {
            try unread.read(handWrittenFrame(.ping, flags: 0, stream: 0, ByteBuffer(repeating: 0, count: 8)))
        }
        var client = try Self.clientPastSettings()
        #expect(throws: HTTP2ConnectionError.self) {
            try client.read(handWrittenFrame(.headers, flags: HTTP2Wire.Flag.endHeaders, stream: 1, ByteBuffer(bytes: [0xff, 0xff, 0xff])))
        }
    }

    @Test func paddingAndPriorityAreReadPast() throws {
        // swift-nio-http2 sends no padding: these frames are built by hand.
        var client = try Self.clientPastSettings()
        var block = ByteBuffer()
        var encoder = HPACKEncoder(allocator: .init())
        try encoder.encode(headers: [":status": "200"], to: &block)
        var headers = ByteBuffer(bytes: [3])  // the pad length
        headers.writeBytes([0, 0, 0, 0, 9])  // the priority: stream 0, weight 9
        headers.writeImmutableBuffer(block)
        headers.writeBytes([0, 0, 0])
        var data = ByteBuffer(bytes: [20])
        data.writeString("padded")
        data.writeRepeatingByte(0, count: 20)
        let flags = HTTP2Wire.Flag.padded | HTTP2Wire.Flag.endHeaders | HTTP2Wire.Flag.priority
        let bytes = handWrittenFrame(.headers, flags: flags, stream: 1, headers)
            + handWrittenFrame(.data, flags: HTTP2Wire.Flag.padded | HTTP2Wire.Flag.endStream, stream: 1, data)
        #expect(try client.read(bytes) == [
            .headers(streamID: 1, [":status": "200"], endStream: false),
            .data(streamID: 1, ByteBuffer(string: "padded"), endStream: true),
        ])
    }

    @Test func aFrameSplitAcrossReadsWaitsForItsLastByte() throws {
        var client = try Self.clientPastSettings()
        let whole = handWrittenFrame(.data, flags: HTTP2Wire.Flag.endStream, stream: 1, ByteBuffer(string: "abcdef"))
        var out = ByteBuffer()
        for index in 0..<(whole.readableBytes - 1) {
            client.receive(whole.getSlice(at: index, length: 1) ?? ByteBuffer())
            #expect(try client.nextEvent(into: &out) == nil)
        }
        client.receive(whole.getSlice(at: whole.readableBytes - 1, length: 1) ?? ByteBuffer())
        #expect(try client.nextEvent(into: &out) == .data(streamID: 1, ByteBuffer(string: "abcdef"), endStream: true))
    }

    // MARK: Helpers

    private static let request: HPACKHeaders = [
        ":method": "POST", ":scheme": "http", ":path": "/etcdserverpb.KV/Txn", ":authority": "127.0.0.1:2379",
        "content-type": "application/grpc", "te": "trailers",
    ]

    /// The lengths of the DATA frames on stream 1 the client sends once the
    /// server opened `stream`'s window (`.rootStream`: the connection's) by `increment`.
    private static func dataSent(
        afterOpening stream: HTTP2StreamID, by increment: Int, _ peer: ServerPeer, _ client: inout HTTP2ClientSession
    ) throws -> [Int] {
        try peer.send(.windowUpdate(windowSizeIncrement: increment), on: stream)
        var out = ByteBuffer()
        #expect(try client.read(peer.sent(), replies: &out) == [])
        try peer.receive(&out)
        return peer.dataFrameLengths(on: 1)
    }

    /// A client with stream 1 open on `peer`, the SETTINGS of both exchanged.
    private static func client(openedOn peer: ServerPeer, receiveWindow: Int = 1 << 20) throws -> HTTP2ClientSession {
        var client = HTTP2ClientSession(receiveWindow: receiveWindow, allocator: .init())
        var out = ByteBuffer()
        client.start(into: &out)
        try client.writeHeaders(request, streamID: 1, into: &out)
        try peer.receive(&out)
        #expect(try client.read(peer.sent(), replies: &out) == [])
        try peer.receive(&out)
        _ = peer.frames()
        return client
    }

    /// A client that has read a server's empty SETTINGS and opened stream 1.
    private static func clientPastSettings() throws -> HTTP2ClientSession {
        var client = HTTP2ClientSession(receiveWindow: 1 << 20, allocator: .init())
        var out = ByteBuffer()
        try client.writeHeaders(request, streamID: 1, into: &out)
        #expect(try client.read(settings([])) == [])
        return client
    }

    private static func settings(_ values: [(HTTP2Wire.Setting, UInt32)]) -> ByteBuffer {
        var payload = ByteBuffer()
        for (id, value) in values {
            payload.writeInteger(id.rawValue)
            payload.writeInteger(value)
        }
        return handWrittenFrame(.settings, flags: 0, stream: 0, payload)
    }
}

extension HTTP2ClientSession {
    /// Every event in `bytes`.
    fileprivate mutating func read(_ bytes: ByteBuffer) throws(HTTP2ConnectionError) -> [Event] {
        var out = ByteBuffer()
        return try read(bytes, replies: &out)
    }

    fileprivate mutating func read(_ bytes: ByteBuffer, replies out: inout ByteBuffer) throws(HTTP2ConnectionError) -> [Event] {
        receive(bytes)
        var events: [Event] = []
        while let event = try nextEvent(into: &out) { events.append(event) }
        return events
    }
}
