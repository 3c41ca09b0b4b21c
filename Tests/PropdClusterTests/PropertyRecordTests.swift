import PropdCore
import PropdJSON
import Testing

@testable import PropdCluster

/// A `p/` row's record, written directly: the same text the record's JSON
/// object gives (members sorted), and read back whole.
struct PropertyRecordTests {
    static let records: [PropertyRecord] = {
        var marked = PropertyRecord(value: .object(["b": .array([1, "x"]), "a": .null]), error: "division by zero")
        marked.transaction = "node-7"
        return [
            PropertyRecord(value: 21.5),
            PropertyRecord(value: "quoted \"text\"\n"),
            PropertyRecord(value: nil, silent: true),
            PropertyRecord(value: true, silent: true, kept: Revision(41)),
            PropertyRecord(value: nil, error: "no such key"),
            marked,
        ]
    }()

    @Test(arguments: records)
    func theBytesAreTheRecordsJSONObjectAndReadBack(_ record: PropertyRecord) throws {
        var object: [String: JSONValue] = [:]
        if let value = record.value { object["v"] = value }
        if let error = record.error { object["e"] = .string(error) }
        if record.silent { object["s"] = true }
        if let kept = record.kept { object["r"] = .integer(kept.rawValue) }
        if let transaction = record.transaction { object["t"] = .string(transaction) }
        #expect(record.bytes == JSONValue.object(object).jsonBytes)
        #expect(PropertyRecord(bytes: record.bytes) == record)
    }
}
