import PropdCore
import Testing

@Suite struct ChangeTests {
    @Test func changesBecomeEventsAtTheirRevision() throws {
        let key = try Key("room.temp")
        #expect(Change.set(key, 21).event(at: 7) == Event(key: "room.temp", kind: .set, value: 21, revision: 7))
        #expect(Change.delete(key).event(at: 8) == Event(key: "room.temp", kind: .delete, revision: 8))
        #expect(
            Change(key: key, kind: .error("division by zero")).event(at: 9)
                == Event(key: "room.temp", kind: .error, revision: 9, error: "division by zero"))
        #expect(Event.synced(at: 3) == Event(key: "", kind: .synced, revision: 3))
    }

    @Test func revisionsCount() {
        #expect(Revision.none.next == 1)
        #expect(Revision(4) < Revision(5))
    }
}
