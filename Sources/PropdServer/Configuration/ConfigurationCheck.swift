import PropdService

/// `propd --check`: validates the config file and the binding files without
/// starting (no socket, no database), with the messages a reload would give.
public enum ConfigurationCheck {
    /// What was checked, for the success line.
    public struct Checked: Sendable {
        public var configFile: String?
        public var bindingsDirectory: String?
        public var bindings: Int
        /// Settings given that have no effect (``DaemonConfiguration/ignoredSettings``).
        public var warnings: [String] = []
    }

    /// Every problem as `FILE:LINE:COLUMN: message`; empty when both are valid.
    public static func run(environment: [String: String], uid: UInt32, flags: DaemonFlags)
        -> (checked: Checked, errors: [String])
    {
        let configuration: DaemonConfiguration
        do {
            configuration = try DaemonConfiguration.load(environment: environment, uid: uid, flags: flags)
        } catch {
            // Without a usable config the bindings directory is known only from the flag.
            guard let directory = flags.bindings else {
                return (Checked(configFile: flags.config, bindingsDirectory: nil, bindings: 0), ["\(error)"])
            }
            let files = BindingDirectory.read(directory)
            return (
                Checked(configFile: flags.config, bindingsDirectory: directory, bindings: files.entries.count),
                ["\(error)"] + files.check(directory: directory)
            )
        }
        let directory = configuration.bindingsDirectory
        let files = BindingDirectory.read(directory)
        return (
            Checked(
                configFile: configuration.configFile, bindingsDirectory: directory, bindings: files.entries.count,
                warnings: configuration.ignoredSettings),
            files.check(directory: directory)
        )
    }
}
