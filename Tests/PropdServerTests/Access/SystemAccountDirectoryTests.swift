#if canImport(Glibc)
import Glibc
#endif
import PropdServer
import Testing

@Suite struct SystemAccountDirectoryTests {
    let directory = SystemAccountDirectory()

    @Test func resolvesWellKnownNames() {
        #expect(directory.userID(named: "root") == 0)
        #expect(directory.groupID(named: "root") == 0)
        #expect(directory.userID(named: "daemon") == 1)
        #expect(directory.groupID(named: "nogroup") == 65534)
    }

    @Test func unknownNamesAreNil() {
        #expect(directory.userID(named: "no-such-user-propd-test") == nil)
        #expect(directory.groupID(named: "no-such-group-propd-test") == nil)
    }

    @Test func groupListIncludesThePrimaryGroup() {
        let groups = directory.groupIDs(ofUser: getuid(), primaryGroup: getgid())
        #expect(groups.contains(getgid()))
        // A uid with no passwd entry still has its primary group.
        #expect(directory.groupIDs(ofUser: 3_999_999, primaryGroup: 77) == [77])
    }
}
