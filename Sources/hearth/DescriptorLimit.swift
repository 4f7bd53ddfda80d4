#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's limit on open file descriptors, raised to what the system allows.
///
/// Every connection, listener and open blob is a descriptor, and shells start processes with a low soft
/// limit (1,024 on many Linux systems, 256 on macOS) under a much higher hard one. A suite that a test run
/// drives with hundreds of clients would reach the soft limit first; then no port accepts connections, and
/// NIO retries the failing accept in a loop that takes a core. Raising the soft limit to the hard one, as
/// Go programs do at start, keeps that out of reach of any ordinary test suite.
enum DescriptorLimit {
    /// Raises the soft limit to the hard limit (on macOS, at most `OPEN_MAX`).
    static func raise() {
        var limit = rlimit()
        guard getrlimit(resourceNumber, &limit) == 0 else { return }
        var wanted = limit.rlim_max
        #if canImport(Darwin)
            wanted = min(wanted, rlim_t(OPEN_MAX))
        #endif
        guard limit.rlim_cur < wanted else { return }
        limit.rlim_cur = wanted
        _ = setrlimit(resourceNumber, &limit)
    }

    #if canImport(Glibc)
        private static let resourceNumber = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resourceNumber = RLIMIT_NOFILE
    #endif
}
