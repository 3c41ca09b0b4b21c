public import NIOCore

/// The only handler of an ``EpollStreamChannel``'s pipeline, attached to
/// the channel (``EpollStreamChannel/attach(_:)``) so that a read, the end
/// of a burst and the next read's request reach it as plain calls, not as
/// pipeline events.
///
/// A pipeline event crosses the head's handler and the handler's context,
/// boxing its bytes in `NIOAny` and retaining each on the way: on a
/// connection that answers one call per read, that crossing is a
/// measurable share of the call (BENCHMARKS.md, "Why the write path is
/// built this way"). What the handler writes back goes to the channel
/// directly too (``EpollStreamChannel/writeDirectly(_:promise:)``). Every
/// other event (activity, writability, errors, closing) still runs through
/// the pipeline. Only a pipeline's sole handler may attach: a call that
/// skips the pipeline skips every other handler in it.
public protocol EpollDirectHandler: AnyObject {
    /// As `channelRead`: bytes read from the socket, in the loop's read
    /// buffer (a handler that keeps them past the call keeps its own copy,
    /// as a pipeline handler would).
    func channelReadDirectly(_ bytes: ByteBuffer)

    /// As `channelReadComplete`: the end of a burst of reads.
    func channelReadCompleteDirectly()

    /// As the outbound `read()` the channel asks for after a burst: the
    /// handler calls ``EpollStreamChannel/read0()`` when it lets it through.
    func readRequestedDirectly()
}
