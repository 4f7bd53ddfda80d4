import EmulatorCore
import Foundation
import Testing

@Suite struct SuiteConfigTests {
    func write(_ name: String, _ text: String) throws -> String {
        let folder = NSTemporaryDirectory() + "hearth-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        return folder
    }

    @Test func defaultsWithoutFiles() throws {
        let folder = try write("other.txt", "")
        var config = try SuiteConfig.load(directory: folder)
        try config.apply(only: nil, project: nil, host: nil, ports: [])
        #expect(config.projectID == "demo-hearth")
        #expect(config.address(of: .auth) == ("127.0.0.1", 9099))
        #expect(config.address(of: .hub).port == 4400)
    }

    @Test func emulatorJSONIsStrict() throws {
        let good = try write("emulator.json", #"{"projectId":"demo-app","emulators":{"auth":{"port":9100}}}"#)
        let config = try SuiteConfig.load(directory: good)
        #expect(config.projectID == "demo-app")
        #expect(config.emulators[.auth]?.port == 9100)
        let unknownKey = try write("emulator.json", #"{"emulators":{"auth":{"prot":1}}}"#)
        #expect(throws: ConfigError("emulator.json: emulators.auth.prot: unknown key (known: port, host)")) {
            try SuiteConfig.load(directory: unknownKey)
        }
        let badPort = try write("emulator.json", #"{"emulators":{"auth":{"port":"x"}}}"#)
        #expect(throws: ConfigError.self) { try SuiteConfig.load(directory: badPort) }
        let badName = try write("emulator.json", #"{"emulators":{"functions":{}}}"#)
        #expect(throws: ConfigError.self) { try SuiteConfig.load(directory: badName) }
    }

    @Test func dataFoldersAreReadAgainstTheConfigFolder() throws {
        let folder = try write("emulator.json", #"{"import":"seed","exportOnExit":true,"dataDir":null}"#)
        let config = try SuiteConfig.load(directory: folder)
        #expect(config.importFolder == folder + "/seed")
        #expect(config.exportOnExit == "")
        let elsewhere = try SuiteConfig.load(directory: try write("emulator.json", #"{"exportOnExit":"/tmp/out"}"#))
        #expect(elsewhere.importFolder == nil && elsewhere.exportOnExit == "/tmp/out")
        #expect(try SuiteConfig.load(directory: try write("emulator.json", #"{"exportOnExit":false}"#)).exportOnExit == nil)
        #expect(config.dataDirectory == nil)
        let durable = try write("emulator.json", #"{"dataDir":"data"}"#)
        #expect(try SuiteConfig.load(directory: durable).dataDirectory == durable + "/data")
        let absolute = try write("emulator.json", #"{"dataDir":"/var/hearth"}"#)
        #expect(try SuiteConfig.load(directory: absolute).dataDirectory == "/var/hearth")
        #expect(throws: ConfigError.self) { try SuiteConfig.load(directory: try write("emulator.json", #"{"dataDir":3}"#)) }
    }

    @Test func storageBucketsHaveRulesOfTheirOwn() throws {
        let ours = try write(
            "emulator.json",
            #"{"emulators":{"storage":{"rules":"storage.rules","maxUploadSize":1048576,"buckets":[{"bucket":"uploads","rules":"uploads.rules"}]}}}"#)
        let config = try SuiteConfig.load(directory: ours)
        #expect(config.emulators[.storage]?.maxUploadSize == 1_048_576)
        #expect(config.emulators[.storage]?.rules == "storage.rules")
        #expect(config.emulators[.storage]?.bucketRules == ["uploads": "uploads.rules"])
        let bad = try write("emulator.json", #"{"emulators":{"storage":{"buckets":[{"bucket":"x"}]}}}"#)
        #expect(throws: ConfigError(#"emulator.json: emulators.storage.buckets[0]: expected {"bucket": ..., "rules": ...}"#)) {
            try SuiteConfig.load(directory: bad)
        }
        let theirs = try write(
            "firebase.json",
            #"{"storage":[{"bucket":"a","rules":"a.rules"},{"bucket":"b","rules":"b.rules"}],"emulators":{"storage":{"port":9199}}}"#)
        let firebase = try SuiteConfig.load(directory: theirs)
        #expect(firebase.emulators[.storage]?.bucketRules == ["a": "a.rules", "b": "b.rules"])
    }

    @Test func indexesFilesAndStrictIndexesAreRead() throws {
        let ours = try write(
            "emulator.json", #"{"strictIndexes":true,"emulators":{"firestore":{"rules":"f.rules","indexes":"firestore.indexes.json"}}}"#)
        let config = try SuiteConfig.load(directory: ours)
        #expect(config.strictIndexes)
        #expect(config.emulators[.firestore]?.indexes == "firestore.indexes.json")
        #expect(try SuiteConfig.load(directory: try write("emulator.json", "{}")).strictIndexes == false)
        #expect(throws: ConfigError("emulator.json: strictIndexes: expected a boolean, got string")) {
            try SuiteConfig.load(directory: try write("emulator.json", #"{"strictIndexes":"yes"}"#))
        }
        let theirs = try write(
            "firebase.json", #"{"firestore":{"rules":"firestore.rules","indexes":"firestore.indexes.json"},"emulators":{"firestore":{}}}"#)
        #expect(try SuiteConfig.load(directory: theirs).emulators[.firestore]?.indexes == "firestore.indexes.json")
    }

    @Test func firebaseJSONFallbackIgnoresOtherProducts() throws {
        let folder = try write(
            "firebase.json", #"{"hosting":{},"emulators":{"auth":{"port":9111},"functions":{"port":5001},"ui":{"enabled":true}}}"#)
        try #"{"projects":{"default":"demo-rc"}}"#.write(toFile: folder + "/.firebaserc", atomically: true, encoding: .utf8)
        var config = try SuiteConfig.load(directory: folder)
        #expect(config.projectID == "demo-rc")
        #expect(config.emulators[.auth]?.port == 9111)
        try config.apply(only: nil, project: nil, host: nil, ports: [])
        #expect(config.emulators[.auth] != nil)
    }

    @Test func commandLineOptions() throws {
        var config = SuiteConfig()
        try config.apply(only: ["auth"], project: "demo-x", host: "0.0.0.0", ports: ["auth=0"])
        #expect(config.projectID == "demo-x")
        #expect(config.address(of: .auth) == ("0.0.0.0", 0))
        var unknown = SuiteConfig()
        #expect(throws: ConfigError.self) { try unknown.apply(only: ["nope"], project: nil, host: nil, ports: []) }
        var badPort = SuiteConfig()
        #expect(throws: ConfigError.self) { try badPort.apply(only: nil, project: nil, host: nil, ports: ["auth=70000"]) }
    }

    /// `start` serves the UI unless the config disables it, keeping its configured port under `--only`;
    /// `exec` serves it only when asked (`ui: false` here), and then `--port ui=` is an error.
    @Test func theEmulatorUIIsServedByStartUnlessDisabled() throws {
        let folder = try write("emulator.json", #"{"emulators":{"firestore":{"port":8181},"ui":{"port":4111}}}"#)
        var start = try SuiteConfig.load(directory: folder)
        try start.apply(only: ["firestore"], project: nil, host: nil, ports: [], ui: true)
        #expect(start.address(of: .ui).port == 4111)
        var exec = try SuiteConfig.load(directory: folder)
        try exec.apply(only: nil, project: nil, host: nil, ports: [], ui: false)
        #expect(exec.emulators[.ui] == nil)
        #expect(throws: ConfigError.self) { try exec.apply(only: nil, project: nil, host: nil, ports: ["ui=0"], ui: false) }
        var defaults = SuiteConfig()
        try defaults.apply(only: nil, project: nil, host: nil, ports: ["ui=0"], ui: true)
        #expect(defaults.emulators[.ui]?.port == 0 && defaults.emulators[.auth] != nil)

        let disabled = try write("firebase.json", #"{"emulators":{"auth":{},"ui":{"enabled":false}}}"#)
        var off = try SuiteConfig.load(directory: disabled)
        #expect(!off.uiEnabled)
        try off.apply(only: nil, project: nil, host: nil, ports: [], ui: true)
        #expect(off.emulators[.ui] == nil && off.emulators[.auth] != nil)
        let strict = try write("emulator.json", #"{"emulators":{"auth":{},"ui":{"enabled":false}}}"#)
        #expect(try !SuiteConfig.load(directory: strict).uiEnabled)
    }
}
