import PropertyBased
import PropdCore
import Testing

/// Random JSON documents: parse(encode(v)) == v, and encoding is stable.
@Suite struct JSONRoundTripPropertyTests {
    static func randomValue(_ rng: inout any SeededRandomNumberGenerator, depth: Int) -> JSONValue {
        let pick = Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &rng)
        switch pick {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .integer(Int64.random(in: -(1 << 60)...(1 << 60), using: &rng))
        case 3: return .number(Double.random(in: -1e9...1e9, using: &rng))
        case 4:
            let scalars = (0..<Int.random(in: 0...8, using: &rng)).map { _ in
                Unicode.Scalar(UInt32.random(in: 0...0xD7FF, using: &rng)) ?? "x"
            }
            return .string(String(String.UnicodeScalarView(scalars)))
        case 5:
            return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for i in 0..<Int.random(in: 0...4, using: &rng) {
                members["k\(i)\(Int.random(in: 0...9, using: &rng))"] = randomValue(&rng, depth: depth + 1)
            }
            return .object(members)
        }
    }

    static let documents = Generator<JSONValue, Shrink.None<JSONValue>>(run: { rng in randomValue(&rng, depth: 0) })

    @Test func encodeThenParseIsIdentity() async {
        await propertyCheck(count: 500, input: Self.documents) { value in
            let text = value.jsonString
            let back = try? JSONValue(parsing: text)
            #expect(back == value, "\(text)")
            #expect(back?.jsonString == text)
        }
    }
}
