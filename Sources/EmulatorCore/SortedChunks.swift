/// An order of elements for `SortedChunks`.
public protocol ChunkOrder {
    /// What is ordered.
    associatedtype Element: Sendable
    /// Whether `a` sorts before `b` (a strict weak order; elements neither before the other are the same).
    static func precedes(_ a: Element, _ b: Element) -> Bool
    /// How many elements a chunk holds after a split (it splits at twice as many): larger chunks search
    /// fewer chunks, smaller ones move fewer elements on an insert.
    static var chunkLimit: Int { get }
}

extension ChunkOrder {
    /// 512.
    @inlinable public static var chunkLimit: Int { 512 }
}

/// Elements kept sorted under inserts and removals, without duplicates: a Firestore collection's document
/// ids and field indexes, a Realtime Database node's children by a query index.
///
/// Stored as a list of sorted chunks of at most `2 × chunkLimit` elements, so an insert moves at most one
/// chunk's worth of elements instead of all of them (a million-document collection stays cheap to grow),
/// and copies share the chunks a change does not touch.
@frozen public struct SortedChunks<Order: ChunkOrder>: Sendable, Sequence {
    /// What is kept.
    public typealias Element = Order.Element

    @usableFromInline var chunks: [[Element]] = []
    /// Each chunk's first element, so that finding a chunk reads one flat array.
    @usableFromInline var firsts: [Element] = []
    @usableFromInline var storedCount = 0
    /// How many elements there are.
    @inlinable public var count: Int { storedCount }
    @inlinable static var chunkLimit: Int { Order.chunkLimit }

    /// Creates an empty set.
    @inlinable public init() {}

    /// The set of `sorted`, which are in order and distinct.
    @inlinable public init(sorted: some Collection<Element>) {
        var chunk: [Element] = []
        chunk.reserveCapacity(Self.chunkLimit)
        for element in sorted {
            chunk.append(element)
            if chunk.count == Self.chunkLimit {
                chunks.append(chunk)
                firsts.append(chunk[0])
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty {
            chunks.append(chunk)
            firsts.append(chunk[0])
        }
        storedCount = sorted.count
    }

    /// Whether `chunk` holds `element` at `position`, its lower bound there.
    @inlinable static func holds(_ element: Element, at position: Int, in chunk: [Element]) -> Bool {
        chunk.withUnsafeBufferPointer { position < $0.count && !Order.precedes(element, $0[position]) }
    }

    /// Adds `element` unless present; returns whether it was added.
    @discardableResult @inlinable
    public mutating func insert(_ element: Element) -> Bool {
        guard !chunks.isEmpty else {
            chunks = [[element]]
            firsts = [element]
            storedCount = 1
            return true
        }
        // Elements that come in order (a restart, an import, increasing ids) go on the end without a search.
        let last = chunks.count - 1
        let appends = chunks[last].withUnsafeBufferPointer { Order.precedes($0[$0.count - 1], element) }
        let chunkIndex = appends ? last : self.chunkIndex(for: element)
        let position = appends ? chunks[last].count : Self.lowerBound(of: element, in: chunks[chunkIndex])
        if !appends, Self.holds(element, at: position, in: chunks[chunkIndex]) { return false }
        Self.makeRoom(in: &chunks[chunkIndex])
        chunks[chunkIndex].insert(element, at: position)
        if position == 0 { firsts[chunkIndex] = element }
        storedCount += 1
        if chunks[chunkIndex].count > 2 * Self.chunkLimit {
            // Both halves in buffers of their own size: the full one is freed.
            let lower = Array(chunks[chunkIndex][..<Self.chunkLimit])
            let upper = Array(chunks[chunkIndex][Self.chunkLimit...])
            chunks[chunkIndex] = lower
            chunks.insert(upper, at: chunkIndex + 1)
            firsts.insert(upper[0], at: chunkIndex + 1)
        }
        return true
    }

    /// Grows a full `chunk` for one more element: doubling while it is small, then by half the chunk limit
    /// at a time, up to one past twice the limit (where it splits). Doubling all the way left a chunk that
    /// split in a buffer four times its elements' size: a write-heavy index used 2–3 times its memory.
    @inlinable static func makeRoom(in chunk: inout [Element]) {
        guard chunk.count == chunk.capacity else { return }
        let growth = Swift.max(Swift.min(chunk.count, chunkLimit / 2), 1)
        chunk.reserveCapacity(Swift.min(chunk.count + growth, 2 * chunkLimit + 1))
    }

    /// Removes `element` if present; returns whether it was there.
    @discardableResult @inlinable
    public mutating func remove(_ element: Element) -> Bool {
        guard !chunks.isEmpty else { return false }
        let chunkIndex = self.chunkIndex(for: element)
        let position = Self.lowerBound(of: element, in: chunks[chunkIndex])
        guard Self.holds(element, at: position, in: chunks[chunkIndex]) else { return false }
        chunks[chunkIndex].remove(at: position)
        storedCount -= 1
        if chunks[chunkIndex].isEmpty {
            chunks.remove(at: chunkIndex)
            firsts.remove(at: chunkIndex)
        } else if position == 0 {
            firsts[chunkIndex] = chunks[chunkIndex][0]
        }
        return true
    }

    /// Whether `element` is present.
    @inlinable public func contains(_ element: Element) -> Bool {
        guard !chunks.isEmpty else { return false }
        let chunk = chunks[chunkIndex(for: element)]
        return Self.holds(element, at: Self.lowerBound(of: element, in: chunk), in: chunk)
    }

    /// The elements in order, starting at the first not before `start` (all of them when `nil`).
    @inlinable public func elements(from start: Element? = nil) -> Elements {
        guard let start else { return Elements(chunks: chunks, chunk: 0, position: 0, forward: true) }
        return elements(from: { Order.precedes($0, start) })
    }

    /// The elements in order, starting at the first for which `isBefore` is false; `isBefore` must hold for
    /// a prefix of the elements and not after it (a seek by a partial key).
    @inlinable public func elements(from isBefore: (Element) -> Bool) -> Elements {
        let (chunk, position) = partition(isBefore)
        return Elements(chunks: chunks, chunk: chunk, position: position, forward: true)
    }

    /// The elements in reverse order, starting at the last for which `isBefore` holds (`isBefore` as for
    /// `elements(from:)`; every element when it always holds).
    @inlinable public func reversed(before isBefore: (Element) -> Bool) -> Elements {
        let (chunk, position) = partition(isBefore)
        return Elements(chunks: chunks, chunk: chunk, position: position, forward: false)
    }

    /// Iterates every element in order.
    @inlinable public func makeIterator() -> Elements { Elements(chunks: chunks, chunk: 0, position: 0, forward: true) }

    /// The elements from a position on, in order (`forward`), or those before it, last first.
    @frozen public struct Elements: Sequence, IteratorProtocol {
        @usableFromInline let chunks: [[Element]]
        @usableFromInline var chunk: Int
        @usableFromInline var position: Int
        @usableFromInline let forward: Bool

        @inlinable init(chunks: [[Element]], chunk: Int, position: Int, forward: Bool) {
            self.chunks = chunks
            self.chunk = chunk
            self.position = position
            self.forward = forward
        }

        /// The next element in the iteration's direction, or `nil` past the end.
        @inlinable public mutating func next() -> Element? {
            if forward {
                while chunk < chunks.count {
                    if position < chunks[chunk].count {
                        defer { position += 1 }
                        return chunks[chunk][position]
                    }
                    chunk += 1
                    position = 0
                }
                return nil
            }
            while position == 0 {
                guard chunk > 0 else { return nil }
                chunk -= 1
                position = chunks[chunk].count
            }
            position -= 1
            return chunks[chunk][position]
        }
    }

    /// Where the elements for which `isBefore` holds end: a chunk and a position in it (the chunk count and 0
    /// past the end).
    @inlinable func partition(_ isBefore: (Element) -> Bool) -> (chunk: Int, position: Int) {
        // The first chunk whose last element is not before.
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            let before = chunks[middle].withUnsafeBufferPointer { isBefore($0[$0.count - 1]) }
            if before { low = middle + 1 } else { high = middle }
        }
        guard low < chunks.count else { return (chunks.count, 0) }
        let position = chunks[low].withUnsafeBufferPointer { chunk in
            var first = 0
            var last = chunk.count
            while first < last {
                let middle = (first + last) / 2
                if isBefore(chunk[middle]) { first = middle + 1 } else { last = middle }
            }
            return first
        }
        return (low, position)
    }

    /// The chunk that holds (or would hold) `element`: the last chunk whose first element is not after it.
    /// The searches borrow elements through buffer pointers: an element copied out of an array for one
    /// comparison would be retained and released.
    @inlinable func chunkIndex(for element: Element) -> Int {
        firsts.withUnsafeBufferPointer { firsts in
            var low = 0
            var high = firsts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if Order.precedes(element, firsts[middle]) { high = middle - 1 } else { low = middle }
            }
            return low
        }
    }

    @inlinable static func lowerBound(of element: Element, in chunk: [Element]) -> Int {
        chunk.withUnsafeBufferPointer { chunk in
            var low = 0
            var high = chunk.count
            while low < high {
                let middle = (low + high) / 2
                if Order.precedes(chunk[middle], element) { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }
}

