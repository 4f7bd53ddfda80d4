// The fuzzing harness's entry points (the targets are in FuzzTargets.swift). scripts/fuzz builds it with
// `-sanitize=fuzzer` and FUZZING defined (Package.swift, HEARTH_FUZZING=1): its main then runs libFuzzer's
// driver. Built plainly, it replays files: `HearthFuzz <target> <file>...`.
import Foundation

#if FUZZING
import CFuzzDriver

/// The target this run fuzzes, from `HEARTH_FUZZ_TARGET`.
let fuzzTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["HEARTH_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("HEARTH_FUZZ_TARGET must be one of: \(names)\n".utf8))
        exit(2)
    }
    return target
}()

/// One input for the selected target (libFuzzer's runtime also looks this symbol up).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// Runs libFuzzer's loop (options from the command line) over the target `HEARTH_FUZZ_TARGET` names.
@main
enum Fuzz {
    static func main() {
        _ = fuzzTarget
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOne(data, size) })
    }
}
#else
/// Replays input files through a target, as the fuzzer would run them.
@main
enum Replay {
    static func main() {
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
    }
}
#endif
