// swift-tools-version:6.2
// Build-time tools for Hearth, kept apart from the main package so that building the protoc plugins never
// touches the main package's build folder (building them there makes later builds compile protoc's C++).
// Used by scripts/generate-protos:
//   swift build -c release --package-path Tools --product protoc-gen-swift
//   swift build -c release --package-path Tools --product protoc-gen-grpc-swift-2

import PackageDescription

let package = Package(
    name: "hearth-tools",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", exact: "2.4.1"),
    ],
    targets: []
)
