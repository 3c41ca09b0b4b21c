/// Thrown by the watchdog's probe so that it consumes no revision.
struct ProbeOnly: Error {}

extension PropertyService {
    /// Sends an empty request through the writer and waits for it: true when
    /// the writer is alive. The systemd watchdog is fed from here, so a stuck
    /// writer stops the pings and systemd restarts the daemon.
    public func probeWriter() async -> Bool {
        do {
            _ = try await commitUnmapped { _, _ in throw ProbeOnly() }
            return false
        } catch is ProbeOnly {
            return true
        } catch {
            return false
        }
    }
}
