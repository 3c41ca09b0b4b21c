/// Finding, eight bytes at a time, where a JSON string's plain run ends: the
/// first byte that is `"`, `\` or a control character (below 0x20), which
/// the parser and the encoder must look at, and whether the run held any
/// byte of a multi-byte UTF-8 sequence (0x80 and above), which the parser
/// must validate.
///
/// A property's value is mostly such a run (a name, a sentence, a 100-byte
/// payload), read by the parser on the event loop and written again by the
/// encoder on the writer's thread: testing each byte in turn took 4.4% of
/// the daemon's samples under the shared kit's pipelining client, a word at
/// a time takes 2.3% (BENCHMARKS.md, "Why the write path is built this way").
enum JSONStringScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The offset in `bytes`, from `start`, of the first `"`, `\` or control
    /// byte (`bytes.count` if none), and whether a byte at or above 0x80
    /// came before it.
    static func plainRun(in bytes: UnsafeRawBufferPointer, from start: Int) -> (end: Int, sawNonASCII: Bool) {
        var index = start
        var high: UInt64 = 0
        // Each test is exact as a whole-word Boolean: a false positive
        // needs a borrow, and a borrow starts only at a byte that matches.
        while index + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if hasControl(word) || hasByte(word, UInt8(ascii: "\"")) || hasByte(word, UInt8(ascii: "\\")) { break }
            high |= word
            index += 8
        }
        var sawNonASCII = high & highBits != 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            if byte >= 0x80 { sawNonASCII = true }
            index += 1
        }
        return (index, sawNonASCII)
    }

    /// Whether some byte of `word` is below 0x20.
    private static func hasControl(_ word: UInt64) -> Bool {
        (word &- ones &* 0x20) & ~word & highBits != 0
    }

    /// Whether some byte of `word` is `byte`.
    private static func hasByte(_ word: UInt64, _ byte: UInt8) -> Bool {
        let matched = word ^ (ones &* UInt64(byte))
        return (matched &- ones) & ~matched & highBits != 0
    }
}
