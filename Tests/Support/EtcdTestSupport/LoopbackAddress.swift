#if canImport(Glibc)
public import Glibc
#endif

extension sockaddr_in {
    /// 127.0.0.1 at `port` (0: a free port, chosen when bound).
    public static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }
}
