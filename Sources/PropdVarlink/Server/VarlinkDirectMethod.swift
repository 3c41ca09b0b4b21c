/// What a call decoded straight from its frame needs of its method: only
/// the decoder and when it starts, so that finding it copies one closure
/// rather than the whole ``VarlinkMethod``.
struct VarlinkDirectMethod: Sendable {
    /// The method's fully qualified name.
    let name: String
    let decoder: VarlinkMethod.DirectDecoder
    let startsAfterEarlierCalls: Bool

    /// `method`'s, when it has a direct decoder and needs no `more`.
    init?(_ method: VarlinkMethod, named name: String) {
        guard let decoder = method.directDecoder, !method.requiresMore else { return nil }
        self.name = name
        self.decoder = decoder
        self.startsAfterEarlierCalls = method.startsAfterEarlierCalls
    }
}
