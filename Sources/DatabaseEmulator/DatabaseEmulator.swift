/// The Realtime Database emulator (placeholder while it is built).
public enum DatabaseEmulatorPlaceholder {}
