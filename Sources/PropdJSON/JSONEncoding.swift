extension JSONValue {
    /// The compact JSON text of the value. Object members are written in
    /// sorted order, so equal values always have equal text.
    public var jsonString: String {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        encode(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The compact JSON bytes of the value (UTF-8, members sorted).
    public var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        encode(into: &out)
        return out
    }

    /// Appends the compact JSON encoding of the value to `out`.
    ///
    /// Non-finite doubles cannot be produced by the parser or the evaluator;
    /// should one appear anyway it is written as `null` so the output stays JSON.
    public func encode(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .integer(let i): JSONValue.encodeInteger(i, into: &out)
        case .double(let d): JSONValue.encodeDouble(d, into: &out)
        case .string(let s): JSONValue.encodeString(s, into: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, element) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                element.encode(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (i, member) in o.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.encodeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                member.value.encode(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `value` in decimal, its digits written straight into `out`:
    /// every reply and event carries a revision, and going through `String`
    /// cost a conversion and a copy each time.
    public static func encodeInteger(_ value: Int64, into out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // UInt64.max, the largest magnitude, has 20 digits.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    static func encodeDouble(_ d: Double, into out: inout [UInt8]) {
        guard d.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        if d.rounded(.towardZero) == d, abs(d) <= maxExactInteger {
            encodeInteger(Int64(d), into: &out)
        } else {
            // Swift prints the shortest text that reads back as the same double;
            // its forms ("2.5", "1e-07", "1e+20") are all valid JSON numbers.
            out.append(contentsOf: d.description.utf8)
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Writes a JSON string literal, escaping `"`, `\` and control characters.
    public static func encodeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings (keys, names, values) need no escaping: copy them in one go.
        let copied = s.utf8.withContiguousStorageIfAvailable { utf8 in
            guard JSONStringScan.plainRun(in: UnsafeRawBufferPointer(utf8), from: 0).end == utf8.count else {
                return false
            }
            out.append(contentsOf: utf8)
            return true
        }
        if copied == true {
            out.append(UInt8(ascii: "\""))
            return
        }
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30])
                out.append(hexDigits[Int(b >> 4)])
                out.append(hexDigits[Int(b & 0xF)])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
