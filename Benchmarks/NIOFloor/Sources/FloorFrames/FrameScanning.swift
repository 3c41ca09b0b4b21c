#if canImport(Glibc)
import Glibc
#endif

/// How both Swift floors cut a call apart without a JSON parser, as the C
/// floor does with `strstr` and `strchr`.
extension UnsafeRawBufferPointer {
    /// Where `needle` starts: its first byte found by `memchr`, the rest
    /// compared by `memcmp` (glibc's `memmem` needs `_GNU_SOURCE`).
    public func find(_ needle: StaticString) -> Int? {
        guard let base = baseAddress else { return nil }
        let length = needle.utf8CodeUnitCount
        let first = Int32(needle.utf8Start.pointee)
        var offset = 0
        while offset + length <= count, let found = memchr(base + offset, first, count - offset - length + 1) {
            let at = base.distance(to: UnsafeRawPointer(found))
            if memcmp(found, needle.utf8Start, length) == 0 { return at }
            offset = at + 1
        }
        return nil
    }

    /// The first `byte` at or after `start`.
    public func index(of byte: UInt8, from start: Int) -> Int? {
        guard start < count, let base = baseAddress, let found = memchr(base + start, Int32(byte), count - start) else {
            return nil
        }
        return base.distance(to: UnsafeRawPointer(found))
    }
}

/// Calls `body` with `value` (not negative) in decimal ASCII, with no
/// String or array in between, as `%lld` writes it.
public func withDecimalDigits<T>(of value: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
        var rest = UInt64(value)
        var start = digits.count
        repeat {
            start -= 1
            digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        } while rest > 0
        return body(UnsafeBufferPointer(rebasing: digits[start...]))
    }
}
