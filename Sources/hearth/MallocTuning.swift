import CMalloc

/// glibc's allocator settings for a server that moves large buffers.
///
/// By default glibc maps every allocation above 128 KiB (a growing threshold) straight from the kernel and
/// unmaps it on free, so each 1 MiB slice of an upload or download costs 256 fresh, zeroed pages: about half
/// of a 10 MiB download's server time here. Serving allocations up to 8 MiB from the heap reuses those pages
/// instead. Each arena keeps at most 4 MiB of freed memory at its top: `malloc_trim` cannot shrink the top of
/// a thread's arena, so whatever this threshold allows stays resident for good there (at 32 MiB a burst of
/// 60 clients' 1 MiB WebSocket messages left 32 MiB behind; at 4 MiB, 10 MiB transfers run as fast, measured
/// with `bench/storage.py`, and the process holds 24 MB less after them).
enum MallocTuning {
    /// Allocations up to this size come from the heap.
    static let mapThreshold: Int32 = 8 << 20
    /// Freed memory an arena keeps at its top for reuse before returning it to the kernel.
    static let trimThreshold: Int32 = 4 << 20

    /// How often freed memory is handed back to the kernel.
    static let trimInterval = Duration.seconds(10)

    /// Applies the settings and starts handing freed memory back; called once before the emulators start.
    static func apply() {
        #if os(Linux)
            _ = mallopt(M_MMAP_THRESHOLD, mapThreshold)
            _ = mallopt(M_TRIM_THRESHOLD, trimThreshold)
            startTrimming()
        #endif
    }

    #if os(Linux)
        /// Every `trimInterval`, returns the free pages of every allocator arena to the kernel. glibc gives
        /// memory back only from the top of the main heap on its own: what a burst freed elsewhere (1,000
        /// clients' partial WebSocket messages that closed, a large import) would stay resident for good.
        /// One pass over the free lists costs microseconds to a few milliseconds.
        private static func startTrimming() {
            Task.detached(priority: .utility) {
                while !Task.isCancelled {
                    try? await Task.sleep(for: trimInterval)
                    _ = malloc_trim(0)
                }
            }
        }
    #endif
}
