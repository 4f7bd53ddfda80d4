import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The command `hearth exec` runs, spawned with default signal handling and an empty signal mask, so it
/// gets SIGINT/SIGTERM like any program started from a shell (the suite's signal handling blocks them here).
struct ChildProcess {
    let pid: pid_t

    /// Spawns `arguments` (searched on `PATH`) with `environment`; throws the errno text on failure.
    init(arguments: [String], environment: [String: String]) throws {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], nil, &attributes, argv, envp)
        guard result == 0 else { throw SpawnError(message: String(cString: strerror(result))) }
        self.pid = pid
    }

    /// Waits for the process to end; its exit code, or 128+N if signal N ended it.
    func exitCode() async -> Int32 {
        await withCheckedContinuation { continuation in
            let pid = self.pid
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                let signal = status & 0x7f
                continuation.resume(returning: signal == 0 ? (status >> 8) & 0xff : 128 + signal)
            }
        }
    }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) {
        kill(pid, signal)
    }
}

/// Why a command could not be started.
struct SpawnError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
