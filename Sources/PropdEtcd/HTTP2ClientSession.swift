import NIOCore
import NIOHPACK

/// The client side of one HTTP/2 connection (RFC 9113) as gRPC calls need
/// it: frames in, events out, and frames written into the caller's buffer.
/// It keeps the connection's state — the settings of both sides, HPACK's
/// tables, the flow-control windows both ways, a header block split over
/// CONTINUATION frames — and answers SETTINGS and PING itself.
///
/// Why not swift-nio-http2's `NIOHTTP2Handler`: it models every stream's
/// state machine, validates every header block and hands each frame down
/// the pipeline as its own value: a fifth of the writer's loop, and with
/// this session in its place propd's CPU per cluster write fell by a
/// quarter (BENCHMARKS.md, "The cluster"). A gRPC client needs less: its
/// streams are numbered by its own table of calls, which ends a call on
/// its trailers, a reset, or a GOAWAY.
///
/// Not done: the server's SETTINGS_MAX_CONCURRENT_STREAMS (etcd advertises
/// 2³² − 1 by default); a stream past it is reset by the server as
/// REFUSED_STREAM, which the call reads as never sent.
struct HTTP2ClientSession {
    /// What the server sent that a call needs.
    enum Event: Equatable {
        case headers(streamID: UInt32, HPACKHeaders, endStream: Bool)
        case data(streamID: UInt32, ByteBuffer, endStream: Bool)
        case reset(streamID: UInt32, code: UInt32)
        /// No new stream may start; the ones above `lastStreamID` were not processed.
        case goAway(lastStreamID: UInt32, code: UInt32)
    }

    /// The window this client gives each stream and the connection; each is
    /// given back once half of it was read.
    let receiveWindow: Int

    private var encoder: HPACKEncoder
    private var decoder: HPACKDecoder
    private var inbound = ByteBuffer()
    private var sawServerSettings = false
    private var serverMaxFrameSize = HTTP2Wire.defaultMaxFrameSize
    private var serverInitialWindow = HTTP2Wire.defaultWindow
    private var connectionSendWindow = HTTP2Wire.defaultWindow
    private var connectionUnreturned = 0
    private var streams: [UInt32: StreamWindows] = [:]
    /// DATA waiting for a window, in the order it was written.
    private var blocked: [BlockedData] = []
    /// A header block whose CONTINUATION frames are still to come.
    private var continuing: (streamID: UInt32, endStream: Bool, block: ByteBuffer)?

    private struct StreamWindows {
        var send: Int
        var unreturned = 0
    }

    private struct BlockedData {
        var streamID: UInt32
        var bytes: ByteBuffer
        var endStream: Bool
    }

    init(receiveWindow: Int, allocator: ByteBufferAllocator) {
        precondition(receiveWindow >= HTTP2Wire.defaultWindow && receiveWindow <= HTTP2Wire.maxWindow)
        self.receiveWindow = receiveWindow
        encoder = HPACKEncoder(allocator: allocator)
        decoder = HPACKDecoder(allocator: allocator)
    }

    // MARK: Writing

    /// The connection's first bytes: the preface, this client's SETTINGS
    /// (no push, ``receiveWindow`` per stream) and the connection's window
    /// raised to ``receiveWindow``.
    func start(into out: inout ByteBuffer) {
        out.writeBytes(HTTP2Wire.clientPreface)
        HTTP2Wire.writeSettings(
            [(.enablePush, 0), (.initialWindowSize, UInt32(receiveWindow)),
             (.maxHeaderListSize, UInt32(HPACKDecoder.defaultMaxHeaderListSize))],
            into: &out)
        if receiveWindow > HTTP2Wire.defaultWindow {
            HTTP2Wire.writeWindowUpdate(0, increment: receiveWindow - HTTP2Wire.defaultWindow, into: &out)
        }
    }

    /// Opens stream `streamID` with `headers` (a HEADERS frame, and
    /// CONTINUATION frames if the block is larger than the server's frame size).
    /// - Throws: HPACK's error; nothing was written.
    mutating func writeHeaders(_ headers: HPACKHeaders, streamID: UInt32, into out: inout ByteBuffer) throws {
        // The block is encoded after room for its frame's header, which is
        // filled in once the block's length is known.
        let start = out.writerIndex
        out.writeRepeatingByte(0, count: HTTP2Wire.frameHeaderSize)
        do {
            try encoder.encode(headers: headers, to: &out)
        } catch {
            out.moveWriterIndex(to: start)
            throw error
        }
        streams[streamID] = StreamWindows(send: serverInitialWindow)
        let length = out.writerIndex - start - HTTP2Wire.frameHeaderSize
        if length <= serverMaxFrameSize {
            HTTP2Wire.setFrameHeader(
                .init(length: length, type: HTTP2Wire.FrameType.headers.rawValue, flags: HTTP2Wire.Flag.endHeaders, streamID: streamID),
                at: start, in: &out)
            return
        }
        // Rare: a block over one frame goes on in CONTINUATION frames.
        guard var block = out.getSlice(at: start + HTTP2Wire.frameHeaderSize, length: length) else { return }
        out.moveWriterIndex(to: start)
        var type = HTTP2Wire.FrameType.headers
        while block.readableBytes > 0 {
            let chunk = block.readSlice(length: min(serverMaxFrameSize, block.readableBytes)) ?? ByteBuffer()
            HTTP2Wire.writeFrame(
                type, flags: block.readableBytes == 0 ? HTTP2Wire.Flag.endHeaders : 0, streamID: streamID, payload: chunk,
                into: &out)
            type = .continuation
        }
    }

    /// Sends `bytes` on stream `streamID` as DATA frames, as far as the
    /// windows and the server's frame size allow; the rest goes as the
    /// server opens its windows.
    mutating func writeData(_ bytes: ByteBuffer, streamID: UInt32, endStream: Bool, into out: inout ByteBuffer) {
        guard streams[streamID] != nil else { return }
        if blocked.contains(where: { $0.streamID == streamID }) {
            blocked.append(BlockedData(streamID: streamID, bytes: bytes, endStream: endStream))
            return
        }
        var data = BlockedData(streamID: streamID, bytes: bytes, endStream: endStream)
        if !send(&data, into: &out) { blocked.append(data) }
    }

    /// Resets stream `streamID` and forgets it.
    mutating func writeReset(_ streamID: UInt32, _ code: HTTP2Wire.ErrorCode, into out: inout ByteBuffer) {
        closeStream(streamID)
        HTTP2Wire.writeRstStream(streamID, code, into: &out)
    }

    /// Forgets stream `streamID`, whose call ended: its window and any DATA still waiting for it.
    mutating func closeStream(_ streamID: UInt32) {
        guard streams.removeValue(forKey: streamID) != nil else { return }
        if !blocked.isEmpty { blocked.removeAll { $0.streamID == streamID } }
    }

    /// Sends what of `data` the windows allow; true when all of it went.
    private mutating func send(_ data: inout BlockedData, into out: inout ByteBuffer) -> Bool {
        while true {
            // A stream's window is below zero after the server lowered its initial window.
            let window = max(0, min(connectionSendWindow, streams[data.streamID]?.send ?? 0))
            let length = min(data.bytes.readableBytes, window, serverMaxFrameSize)
            let last = length == data.bytes.readableBytes
            // An empty frame that ends the stream needs no window; any other
            // needs some. Nothing left to send and no end to send is done.
            guard length > 0 || (last && data.endStream) else { return last }
            let chunk = data.bytes.readSlice(length: length) ?? ByteBuffer()
            HTTP2Wire.writeFrame(
                .data, flags: last && data.endStream ? HTTP2Wire.Flag.endStream : 0, streamID: data.streamID,
                payload: chunk, into: &out)
            connectionSendWindow -= length
            streams[data.streamID]?.send -= length
            if last { return true }
        }
    }

    /// Sends the waiting DATA that the windows now allow, in order.
    private mutating func sendBlocked(into out: inout ByteBuffer) {
        guard !blocked.isEmpty else { return }
        var waiting: Set<UInt32> = []
        var index = 0
        while index < blocked.count, connectionSendWindow > 0 {
            // A stream's later data waits behind its earlier.
            if waiting.contains(blocked[index].streamID) {
                index += 1
                continue
            }
            var data = blocked[index]
            if send(&data, into: &out) {
                blocked.remove(at: index)
            } else {
                blocked[index] = data
                waiting.insert(data.streamID)
                index += 1
            }
        }
    }

    // MARK: Reading

    /// Adds bytes read from the connection.
    mutating func receive(_ bytes: ByteBuffer) {
        if inbound.readableBytes == 0 {
            inbound = bytes
        } else {
            var bytes = bytes
            inbound.writeBuffer(&bytes)
        }
    }

    /// The next event in the bytes received, `nil` once they hold no whole
    /// frame; answers to the server's control frames and window updates
    /// for what was read go into `out`.
    /// - Throws: ``HTTP2ConnectionError``: the connection is broken.
    mutating func nextEvent(into out: inout ByteBuffer) throws(HTTP2ConnectionError) -> Event? {
        while let header = HTTP2Wire.peekFrameHeader(inbound) {
            guard header.length <= HTTP2Wire.defaultMaxFrameSize else {
                throw .frameTooLarge(type: header.type, length: header.length)
            }
            guard inbound.readableBytes >= HTTP2Wire.frameHeaderSize + header.length else { break }
            inbound.moveReaderIndex(forwardBy: HTTP2Wire.frameHeaderSize)
            let payload = inbound.readSlice(length: header.length) ?? ByteBuffer()
            guard sawServerSettings || header.type == HTTP2Wire.FrameType.settings.rawValue else { throw .prefaceMissing }
            if let continuing, header.type != HTTP2Wire.FrameType.continuation.rawValue || header.streamID != continuing.streamID {
                throw .headerBlockInterrupted(type: header.type)
            }
            if let event = try read(header, payload, into: &out) { return event }
        }
        if inbound.readableBytes == 0 {
            inbound = ByteBuffer()  // its storage may be shared with the payloads handed out
        } else if inbound.readerIndex > 4096 {
            inbound.discardReadBytes()
        }
        return nil
    }

    private mutating func read(
        _ header: HTTP2Wire.FrameHeader, _ payload: ByteBuffer, into out: inout ByteBuffer
    ) throws(HTTP2ConnectionError) -> Event? {
        guard let type = HTTP2Wire.FrameType(rawValue: header.type) else { return nil }  // unknown types are ignored
        switch type {
        case .data:
            guard header.streamID != 0 else { throw .malformedFrame(type: header.type, "DATA on stream 0") }
            let data = try HTTP2Wire.unpadded(payload, header)
            returnWindow(header.length, of: header.streamID, endStream: header.has(HTTP2Wire.Flag.endStream), into: &out)
            return .data(streamID: header.streamID, data, endStream: header.has(HTTP2Wire.Flag.endStream))
        case .headers:
            guard header.streamID != 0 else { throw .malformedFrame(type: header.type, "HEADERS on stream 0") }
            var block = try HTTP2Wire.unpadded(payload, header)
            if header.has(HTTP2Wire.Flag.priority) {
                guard block.readableBytes >= 5 else { throw .malformedFrame(type: header.type, "priority fields cut short") }
                block.moveReaderIndex(forwardBy: 5)
            }
            let endStream = header.has(HTTP2Wire.Flag.endStream)
            guard header.has(HTTP2Wire.Flag.endHeaders) else {
                continuing = (header.streamID, endStream, block)
                return nil
            }
            return .headers(streamID: header.streamID, try decode(&block), endStream: endStream)
        case .continuation:
            guard var continued = continuing else { throw .headerBlockInterrupted(type: header.type) }
            var more = payload
            continued.block.writeBuffer(&more)
            guard continued.block.readableBytes <= HPACKDecoder.defaultMaxHeaderListSize * 2 else {
                throw .headerBlockUnreadable("a header block over \(HPACKDecoder.defaultMaxHeaderListSize * 2) bytes")
            }
            guard header.has(HTTP2Wire.Flag.endHeaders) else {
                continuing = continued
                return nil
            }
            continuing = nil
            return .headers(streamID: continued.streamID, try decode(&continued.block), endStream: continued.endStream)
        case .rstStream:
            var payload = payload
            guard header.streamID != 0, header.length == 4, let code = payload.readInteger(as: UInt32.self) else {
                throw .malformedFrame(type: header.type, "RST_STREAM of \(header.length) bytes on stream \(header.streamID)")
            }
            closeStream(header.streamID)
            return .reset(streamID: header.streamID, code: code)
        case .settings:
            try readSettings(header, payload, into: &out)
            return nil
        case .ping:
            guard header.streamID == 0, header.length == 8 else {
                throw .malformedFrame(type: header.type, "PING of \(header.length) bytes on stream \(header.streamID)")
            }
            if !header.has(HTTP2Wire.Flag.ack) {
                HTTP2Wire.writeFrame(.ping, flags: HTTP2Wire.Flag.ack, streamID: 0, payload: payload, into: &out)
            }
            return nil
        case .goAway:
            var payload = payload
            guard header.streamID == 0, let lastStreamID = payload.readInteger(as: UInt32.self),
                let code = payload.readInteger(as: UInt32.self)
            else { throw .malformedFrame(type: header.type, "GOAWAY of \(header.length) bytes on stream \(header.streamID)") }
            return .goAway(lastStreamID: lastStreamID & 0x7fff_ffff, code: code)
        case .windowUpdate:
            var payload = payload
            guard header.length == 4, let raw = payload.readInteger(as: UInt32.self) else {
                throw .malformedFrame(type: header.type, "WINDOW_UPDATE of \(header.length) bytes")
            }
            try openWindow(of: header.streamID, by: Int(raw & 0x7fff_ffff), into: &out)
            return nil
        case .pushPromise:
            throw .pushRefused
        case .priority:
            guard header.streamID != 0, header.length == 5 else {
                throw .malformedFrame(type: header.type, "PRIORITY of \(header.length) bytes on stream \(header.streamID)")
            }
            return nil
        }
    }

    private mutating func decode(_ block: inout ByteBuffer) throws(HTTP2ConnectionError) -> HPACKHeaders {
        do {
            return try decoder.decodeHeaders(from: &block)
        } catch {
            throw .headerBlockUnreadable("\(error)")
        }
    }

    private mutating func readSettings(
        _ header: HTTP2Wire.FrameHeader, _ payload: ByteBuffer, into out: inout ByteBuffer
    ) throws(HTTP2ConnectionError) {
        guard header.streamID == 0 else { throw .malformedFrame(type: header.type, "SETTINGS on stream \(header.streamID)") }
        if header.has(HTTP2Wire.Flag.ack) {
            guard header.length == 0 else { throw .malformedFrame(type: header.type, "a SETTINGS ACK with a payload") }
            return
        }
        guard header.length % 6 == 0 else { throw .malformedFrame(type: header.type, "SETTINGS of \(header.length) bytes") }
        var payload = payload
        while let id = payload.readInteger(as: UInt16.self), let value = payload.readInteger(as: UInt32.self) {
            switch HTTP2Wire.Setting(rawValue: id) {
            case .initialWindowSize:
                guard Int(value) <= HTTP2Wire.maxWindow else { throw .flowControl("SETTINGS_INITIAL_WINDOW_SIZE \(value)") }
                let change = Int(value) - serverInitialWindow
                serverInitialWindow = Int(value)
                for streamID in streams.keys { streams[streamID]?.send += change }
            case .maxFrameSize:
                guard value >= HTTP2Wire.defaultMaxFrameSize, value < 1 << 24 else {
                    throw .malformedFrame(type: header.type, "SETTINGS_MAX_FRAME_SIZE \(value)")
                }
                serverMaxFrameSize = Int(value)
            case .headerTableSize:
                // The encoder's table may shrink to what the server allows, never grow past its default.
                do {
                    try encoder.setDynamicTableSize(min(Int(value), HPACKEncoder.defaultDynamicTableSize))
                } catch {
                    throw .headerBlockUnreadable("\(error)")
                }
            case .enablePush, .maxConcurrentStreams, .maxHeaderListSize, nil:
                break
            }
        }
        sawServerSettings = true
        HTTP2Wire.writeSettingsAck(into: &out)
        sendBlocked(into: &out)
    }

    private mutating func openWindow(of streamID: UInt32, by increment: Int, into out: inout ByteBuffer) throws(HTTP2ConnectionError) {
        if streamID == 0 {
            guard increment > 0 else { throw .malformedFrame(type: HTTP2Wire.FrameType.windowUpdate.rawValue, "a zero increment") }
            connectionSendWindow += increment
            guard connectionSendWindow <= HTTP2Wire.maxWindow else { throw .flowControl("the connection's window past 2³¹ − 1") }
        } else {
            // A stream's zero increment or overflow is its own error: the call ends when the server resets it.
            guard streams[streamID] != nil else { return }
            streams[streamID]?.send += increment
        }
        sendBlocked(into: &out)
    }

    /// Counts `length` DATA bytes read on `streamID` and gives the windows
    /// back once half of each was read.
    private mutating func returnWindow(_ length: Int, of streamID: UInt32, endStream: Bool, into out: inout ByteBuffer) {
        connectionUnreturned += length
        if connectionUnreturned >= receiveWindow / 2 {
            HTTP2Wire.writeWindowUpdate(0, increment: connectionUnreturned, into: &out)
            connectionUnreturned = 0
        }
        guard !endStream, let unreturned = streams[streamID]?.unreturned else { return }
        if unreturned + length >= receiveWindow / 2 {
            HTTP2Wire.writeWindowUpdate(streamID, increment: unreturned + length, into: &out)
            streams[streamID]?.unreturned = 0
        } else {
            streams[streamID]?.unreturned = unreturned + length
        }
    }
}
