import PropctlCommands

// Everything lives in PropctlCommands (one file per verb); this only runs it.
await Propctl.runMain()
