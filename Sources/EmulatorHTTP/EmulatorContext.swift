import Hummingbird
import Logging
import NIOCore

/// The per-request context of every emulator's HTTP edge.
public struct EmulatorContext: RequestContext {
    /// Hummingbird's core context storage.
    public var coreContext: CoreRequestContextStorage

    /// Creates a context for a request arriving on `source.channel`.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }

    /// Request bodies are collected explicitly by each API with its own limit.
    public var maxUploadSize: Int { .max }
}
