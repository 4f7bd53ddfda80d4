// swift-tools-version:6.2
// Hearth: a local Firebase emulator suite in one Swift binary.

import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "hearth",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hearth", targets: ["hearth"]),
        .library(name: "Suite", targets: ["Suite"]),
        .library(name: "AuthEmulator", targets: ["AuthEmulator"]),
        .library(name: "FirestoreEmulator", targets: ["FirestoreEmulator"]),
        .library(name: "EmulatorCore", targets: ["EmulatorCore"]),
        .library(name: "SecurityRules", targets: ["SecurityRules"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.9.2"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // Pure Swift, no NIO or HTTP: config, tokens, errors as values, clock, JSON values.
        .target(
            name: "EmulatorCore",
            swiftSettings: swiftSettings
        ),
        // The Firestore / Storage security rules language: compiler and evaluator, no NIO or HTTP.
        .target(
            name: "SecurityRules",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // The HTTP edge every emulator shares: listener, CORS, Google-style error rendering, JSON bodies.
        .target(
            name: "EmulatorHTTP",
            dependencies: [
                "EmulatorCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AuthEmulator",
            dependencies: [
                "EmulatorCore",
                "EmulatorHTTP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        // Cloud Firestore emulator: store, query engine and REST (gRPC and listeners come next).
        .target(
            name: "FirestoreEmulator",
            dependencies: [
                "EmulatorCore",
                "EmulatorHTTP",
                "SecurityRules",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Suite",
            dependencies: [
                "EmulatorCore",
                "EmulatorHTTP",
                "AuthEmulator",
                "FirestoreEmulator",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth",
            dependencies: [
                "Suite",
                "EmulatorCore",
                "SecurityRules",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // Prints rules decisions per second: `swift run -c release RulesBenchmark`.
        .executableTarget(
            name: "RulesBenchmark",
            dependencies: ["SecurityRules"],
            path: "Benchmarks/RulesBenchmark",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmulatorCoreTests",
            dependencies: ["EmulatorCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SecurityRulesTests",
            dependencies: ["SecurityRules"],
            resources: [.copy("Corpus")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AuthEmulatorTests",
            dependencies: [
                "AuthEmulator",
                "EmulatorCore",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FirestoreEmulatorTests",
            dependencies: [
                "FirestoreEmulator",
                "EmulatorCore",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCInProcessTransport", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SuiteTests",
            dependencies: [
                "Suite",
                "EmulatorCore",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
