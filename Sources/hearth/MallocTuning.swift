import CMalloc

/// glibc's allocator settings for a server that moves large buffers.
///
/// By default glibc maps every allocation above 128 KiB (a growing threshold) straight from the kernel and
/// unmaps it on free, so each 1 MiB slice of an upload or download costs 256 fresh, zeroed pages: about half
/// of a 10 MiB download's server time here. Serving allocations up to 8 MiB from the heap, and keeping up to
/// 32 MiB of freed heap before returning it, reuses those pages instead. Memory stays bounded: what is kept
/// is what the largest burst of in-flight buffers needed.
enum MallocTuning {
    /// Allocations up to this size come from the heap.
    static let mapThreshold: Int32 = 8 << 20
    /// Freed heap memory kept for reuse before it is returned to the kernel.
    static let trimThreshold: Int32 = 32 << 20

    /// Applies the settings; called once before the emulators start.
    static func apply() {
        #if os(Linux)
            _ = mallopt(M_MMAP_THRESHOLD, mapThreshold)
            _ = mallopt(M_TRIM_THRESHOLD, trimThreshold)
        #endif
    }
}
