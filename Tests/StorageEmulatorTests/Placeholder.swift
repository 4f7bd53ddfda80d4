import Testing
@testable import StorageEmulator
@Suite struct PlaceholderStorageTests { @Test func nothing() {} }
