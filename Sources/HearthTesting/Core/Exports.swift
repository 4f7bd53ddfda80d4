// The EmulatorCore types that appear in HearthTesting's API, so that `import HearthTesting` is enough.
@_exported import enum EmulatorCore.EmulatorName
@_exported import enum EmulatorCore.GoogleStatus
@_exported import enum EmulatorCore.JSONValue
