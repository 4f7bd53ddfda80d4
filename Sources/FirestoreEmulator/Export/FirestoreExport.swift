import Dispatch
import EmulatorCore
import Foundation
import FirestoreWire
import SwiftProtobuf
import Synchronization

/// A Firestore export folder in the production managed-export format, as Google's Firestore emulator writes
/// and reads it:
///
///     <name>.overall_export_metadata                     LevelDB log: "3", then the partitions' summary
///     all_namespaces/all_kinds/all_namespaces_all_kinds.export_metadata    the partition's header and files
///     all_namespaces/all_kinds/output-0                  LevelDB log of entity records, one per document
///
/// Every database of the project goes into the one partition; a document outside `(default)` carries its
/// database id in its key (the official CLI exports `(default)` only).
enum FirestoreExport {
    /// The partition folder, relative to the export folder.
    static let partitionFolder = "all_namespaces/all_kinds"
    /// The partition's metadata file name.
    static let partitionMetadataName = "all_namespaces_all_kinds.export_metadata"
    /// The output file name.
    static let outputName = "output-0"

    /// Writes `snapshot` (from `FirestoreStore.snapshot`) into `folder` as an export named `name`; stops with
    /// `CancellationError` when the task is cancelled. Returns the number of documents written.
    @discardableResult
    static func write(
        _ snapshot: [(name: DatabaseName, collections: [DocumentPath: CollectionState])], to folder: URL, name: String,
        progress: TransferProgress
    ) throws -> Int {
        let start = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let partition = folder.appendingPathComponent(partitionFolder)
        try FileManager.default.createDirectory(at: partition, withIntermediateDirectories: true)
        var output = try LevelDBLogWriter(creating: partition.appendingPathComponent(outputName))
        var count = 0
        for database in snapshot {
            for collectionPath in database.collections.keys.sorted() {
                let collection = database.collections[collectionPath]!
                for id in collection.ids.ids() {
                    guard let document = collection.entries[id]?.current else { continue }
                    let record = try EntityCodec.encode(document, in: database.name)
                    try output.append(record)
                    count += 1
                    progress.add(items: 1, bytes: record.count)
                    if count % 4096 == 0 { try Task.checkCancellation() }
                }
            }
        }
        let size = output.size
        try output.finish()

        var header = Hearth_FirestoreExport_ExportHeader()
        header.exportName = name
        header.startTime = start
        header.endTime = Int64(Date().timeIntervalSince1970 * 1_000_000)
        var files = Hearth_FirestoreExport_OutputFiles()
        files.kind = ""
        files.names = [outputName]
        var metadata = Hearth_FirestoreExport_PartitionMetadata()
        metadata.header = header
        metadata.outputs = [files]
        try Data(metadata.serializedBytes() as [UInt8]).write(to: partition.appendingPathComponent(partitionMetadataName))

        var overall = try LevelDBLogWriter(creating: folder.appendingPathComponent("\(name).overall_export_metadata"))
        try overall.append(Array("3".utf8))
        if count > 0 {
            var summary = Hearth_FirestoreExport_PartitionSummary()
            summary.scope.namespaces = 2
            summary.scope.kinds = 3
            summary.metadataFile = "\(partitionFolder)/\(partitionMetadataName)"
            summary.entityCount = Int64(count)
            summary.byteCount = Int64(size)
            var record = Hearth_FirestoreExport_OverallMetadata()
            record.partitions = [summary]
            try overall.append(try record.serializedBytes())
        } else {
            try overall.append([])
        }
        try overall.finish()
        return count
    }

    /// Reads every document of the export in `folder` (the folder holding a `*.overall_export_metadata` file),
    /// keyed into `project`'s databases whatever project wrote them. Throws `ImportError` naming the file,
    /// and the record, at fault.
    static func read(from folder: URL, project: String, progress: TransferProgress) throws
        -> [DatabaseName: [(path: DocumentPath, fields: [String: FirestoreValue])]]
    {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        guard let overallName = names.sorted().first(where: { $0.hasSuffix(".overall_export_metadata") }) else {
            throw ImportError(file: folder.path, "has no *.overall_export_metadata file: not a Firestore export.")
        }
        let overallFile = folder.appendingPathComponent(overallName)
        var records: [[UInt8]] = []
        do {
            var reader = try LevelDBLogReader(contentsOf: overallFile)
            while let record = try reader.next() { records.append(record) }
        } catch let error as LevelDBLogReader.Corruption {
            throw ImportError(file: overallFile.path, "\(error)")
        } catch {
            throw ImportError(file: overallFile.path, "cannot be read: \(error.localizedDescription)")
        }
        guard records.first == Array("3".utf8) else {
            throw ImportError(file: overallFile.path, "Overall export metadata file version not supported (expected \"3\").")
        }
        var partitions: [Hearth_FirestoreExport_PartitionSummary] = []
        for record in records.dropFirst() where !record.isEmpty {
            do {
                partitions += try Hearth_FirestoreExport_OverallMetadata(serializedBytes: record).partitions
            } catch {
                throw ImportError(file: overallFile.path, "the partition list is not readable (\(error)).")
            }
        }
        var result: [DatabaseName: [(path: DocumentPath, fields: [String: FirestoreValue])]] = [:]
        for partition in partitions {
            let metadataFile = folder.appendingPathComponent(partition.metadataFile)
            guard let data = FileManager.default.contents(atPath: metadataFile.path) else {
                throw ImportError(file: metadataFile.path, "is missing (named by \(overallName)).")
            }
            let metadata: Hearth_FirestoreExport_PartitionMetadata
            do {
                metadata = try Hearth_FirestoreExport_PartitionMetadata(serializedBytes: data)
            } catch {
                throw ImportError(file: metadataFile.path, "is not a partition metadata file (\(error)).")
            }
            let partitionFolder = metadataFile.deletingLastPathComponent()
            for output in metadata.outputs {
                for name in output.names {
                    try read(partitionFolder.appendingPathComponent(name), project: project, into: &result, progress: progress)
                }
            }
        }
        return result
    }

    /// How many records are decoded together, spread over the cores.
    private static let batchSize = 16_384

    private static func read(
        _ file: URL, project: String, into result: inout [DatabaseName: [(path: DocumentPath, fields: [String: FirestoreValue])]],
        progress: TransferProgress
    ) throws {
        var reader: LevelDBLogReader
        do {
            reader = try LevelDBLogReader(contentsOf: file)
        } catch {
            throw ImportError(file: file.path, "cannot be read: \(error.localizedDescription)")
        }
        var first = 0
        var finished = false
        while !finished {
            // Framing is sequential; decoding the records (most of the work) runs on every core.
            var batch: [(offset: Int, record: [UInt8])] = []
            batch.reserveCapacity(batchSize)
            while batch.count < batchSize {
                let offset = reader.position
                do {
                    guard let record = try reader.next() else {
                        finished = true
                        break
                    }
                    batch.append((offset, record))
                } catch {
                    throw ImportError(file: file.path, "record \(first + batch.count): \(error)")
                }
            }
            let decoded = decode(batch, project: project)
            for (index, outcome) in decoded.enumerated() {
                switch outcome {
                case .success(let document):
                    result[document.database, default: []].append((document.path, document.fields))
                case .failure(let error):
                    throw ImportError(file: file.path, "record \(first + index) at byte \(batch[index].offset): \(error)")
                }
            }
            progress.add(items: batch.count, bytes: batch.reduce(0) { $0 + $1.record.count })
            first += batch.count
        }
    }

    private typealias Decoded = (database: DatabaseName, path: DocumentPath, fields: [String: FirestoreValue])

    /// The records of `batch` decoded in parallel, in order.
    private static func decode(_ batch: [(offset: Int, record: [UInt8])], project: String) -> [Result<Decoded, any Error>] {
        let stripes = min(ProcessInfo.processInfo.activeProcessorCount, max(1, batch.count / 256))
        let decoded = Mutex([[Result<Decoded, any Error>]](repeating: [], count: stripes))
        DispatchQueue.concurrentPerform(iterations: stripes) { stripe in
            let range = (batch.count * stripe / stripes)..<(batch.count * (stripe + 1) / stripes)
            let part = range.map { index in
                Result { () throws -> Decoded in try EntityCodec.decode(batch[index].record, project: project) }
            }
            decoded.withLock { $0[stripe] = part }
        }
        return decoded.withLock { $0.flatMap { $0 } }
    }
}
