#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The user and group database, as far as access control needs it. The system
/// one reads NSS (`/etc/passwd`, `/etc/group`, …); tests can pass their own.
public protocol AccountDirectory: Sendable {
    /// The uid of the user with this name, or nil when there is none.
    func userID(named name: String) -> UInt32?
    /// The gid of the group with this name, or nil when there is none.
    func groupID(named name: String) -> UInt32?
    /// Every group `uid` belongs to: `primaryGroup` plus its supplementary
    /// groups from the group database. Just `[primaryGroup]` for a uid with no name.
    func groupIDs(ofUser uid: UInt32, primaryGroup: UInt32) -> [UInt32]
}

/// The system's user and group database, through the reentrant libc calls
/// (`getpwnam_r`, `getgrnam_r`, `getpwuid_r`, `getgrouplist`).
public struct SystemAccountDirectory: AccountDirectory {
    public init() {}

    public func userID(named name: String) -> UInt32? {
        withPasswd(lookup: { entry, buffer, size, result in getpwnam_r(name, entry, buffer, size, result) }) {
            $0.pw_uid
        }
    }

    public func groupID(named name: String) -> UInt32? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        return withGrowingBuffer { buffer, size in
            let status = getgrnam_r(name, &entry, buffer, size, &result)
            return (status, result == nil ? nil : entry.gr_gid)
        }
    }

    public func groupIDs(ofUser uid: UInt32, primaryGroup: UInt32) -> [UInt32] {
        guard let name = withPasswd(lookup: { entry, buffer, size, result in getpwuid_r(uid, entry, buffer, size, result) }, {
            String(cString: $0.pw_name)
        }) else { return [primaryGroup] }
        var count: Int32 = 32
        while true {
            var groups = [gid_t](repeating: 0, count: Int(count))
            let capacity = count
            // getgrouplist returns -1 and sets count to the number needed when
            // the array is too small.
            if getgrouplist(name, primaryGroup, &groups, &count) != -1 {
                var found = Array(groups.prefix(Int(count)))
                if !found.contains(primaryGroup) { found.append(primaryGroup) }
                return found
            }
            if count <= capacity { count = capacity * 2 }  // some libcs do not report the size
            if count > 65536 { return [primaryGroup] }
        }
    }

    private func withPasswd<T>(
        lookup: (UnsafeMutablePointer<passwd>, UnsafeMutablePointer<CChar>, Int, UnsafeMutablePointer<UnsafeMutablePointer<passwd>?>) -> Int32,
        _ read: (passwd) -> T
    ) -> T? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        return withGrowingBuffer { buffer, size in
            let status = lookup(&entry, buffer, size, &result)
            return (status, result == nil ? nil : read(entry))
        }
    }

    /// Calls `body` with a scratch buffer, doubling it while the call says
    /// ERANGE (the `_r` functions' way of asking for more room).
    private func withGrowingBuffer<T>(_ body: (UnsafeMutablePointer<CChar>, Int) -> (Int32, T?)) -> T? {
        var size = 1024
        while size <= 1 << 20 {
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
            defer { buffer.deallocate() }
            let (status, value) = body(buffer, size)
            if status == ERANGE {
                size *= 2
                continue
            }
            return status == 0 ? value : nil
        }
        return nil
    }
}
