// The fuzzing harness (see FuzzTargets.swift). Built with `-sanitize=fuzzer -DFUZZING` by scripts/fuzz,
// libFuzzer's own main drives `LLVMFuzzerTestOneInput`; built plainly, this replays files:
// `HearthFuzz <target> <file>...`.
import Foundation

#if FUZZING
/// The target this run fuzzes, from `HEARTH_FUZZ_TARGET`.
nonisolated(unsafe) let fuzzTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["HEARTH_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("HEARTH_FUZZ_TARGET must be one of: \(names)\n".utf8))
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
#else
let arguments = CommandLine.arguments.dropFirst()
guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
    let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
    FileHandle.standardError.write(Data("usage: HearthFuzz <\(names)> <file>...\n".utf8))
    exit(2)
}
for path in arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
        exit(1)
    }
    data.withUnsafeBytes { target.run($0) }
    print("\(name): \(path) ok")
}
#endif
