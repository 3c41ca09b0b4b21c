#if canImport(Glibc)
import Glibc
#endif
import PropdServer
import Testing

@Suite struct DirectoriesTests {
    func mode(_ path: String) -> mode_t {
        var status = stat()
        _ = stat(path, &status)
        return status.st_mode & 0o7777
    }

    @Test func createsMissingDirectoriesPrivate() throws {
        let dir = try TemporaryDirectory()
        let socket = dir.path + "/run/propd/propd.sock"
        let database = dir.path + "/state/a/b/propd.db"
        try Directories.prepare(for: [socket, database], uid: getuid())
        #expect(mode(dir.path + "/run") == 0o700)
        #expect(mode(dir.path + "/run/propd") == 0o700)
        #expect(mode(dir.path + "/state/a/b") == 0o700)
        // Again: nothing to do, no error.
        try Directories.prepare(for: [socket, database], uid: getuid())
    }

    @Test func existingDirectoriesKeepTheirMode() throws {
        let dir = try TemporaryDirectory()
        #expect(mkdir(dir.path + "/shared", 0o755) == 0)
        #expect(chmod(dir.path + "/shared", 0o755) == 0)
        try Directories.prepare(for: [dir.path + "/shared/propd.db"], uid: getuid())
        #expect(mode(dir.path + "/shared") == 0o755)
    }

    @Test func refusesAWorldWritableDirectoryUnlessSticky() throws {
        let dir = try TemporaryDirectory()
        let open = dir.path + "/open"
        #expect(mkdir(open, 0o777) == 0)
        #expect(chmod(open, 0o777) == 0)
        #expect(throws: DirectoryError.writableByOthers(open)) {
            try Directories.prepare(for: [open + "/propd.sock"], uid: getuid())
        }
        #expect(chmod(open, 0o1777) == 0)  // like /tmp
        try Directories.prepare(for: [open + "/propd.sock"], uid: getuid())
    }

    @Test func refusesADirectoryOfAnotherUser() throws {
        let dir = try TemporaryDirectory()
        // The directory is ours; claiming to be another uid makes it foreign.
        let other: UInt32 = getuid() == 4321 ? 4322 : 4321
        if getuid() == 0 {
            // Root's check accepts root-owned directories; use a chowned one.
            #expect(mkdir(dir.path + "/theirs", 0o700) == 0)
            #expect(chown(dir.path + "/theirs", other + 1, other + 1) == 0)
            #expect(throws: DirectoryError.ownedByAnotherUser(dir.path + "/theirs", owner: other + 1)) {
                try Directories.prepare(for: [dir.path + "/theirs/propd.sock"], uid: 0)
            }
        } else {
            #expect(throws: DirectoryError.ownedByAnotherUser(dir.path, owner: getuid())) {
                try Directories.prepare(for: [dir.path + "/propd.sock"], uid: other)
            }
        }
    }

    @Test func aFileInTheWayIsReported() throws {
        let dir = try TemporaryDirectory()
        try dir.write("x", to: "file")
        #expect(throws: DirectoryError.notADirectory(dir.path + "/file")) {
            try Directories.prepare(for: [dir.path + "/file/propd.db"], uid: getuid())
        }
    }
}
