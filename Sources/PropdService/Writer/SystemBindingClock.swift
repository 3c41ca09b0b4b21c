public import PropdBindings

#if canImport(Glibc)
import Glibc
#endif

/// The wall clock, for the binding engine's time operators. Wall time (not
/// monotonic) because a throttle deadline persisted before a restart must
/// mean the same moment after it.
/// The clock propd runs on.
public struct SystemBindingClock: BindingClock {
    public init() {}

    public func now() -> BindingInstant {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return BindingInstant(milliseconds: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }
}
