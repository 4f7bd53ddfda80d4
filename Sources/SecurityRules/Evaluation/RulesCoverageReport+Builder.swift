extension RulesCoverageReport {
    /// Turns a compiled program and its coverage counts into report entries.
    ///
    /// Expressions know only where they start, so each file is parsed again (ids come out the same, as
    /// `RulesCompiler` numbers them file after file) to learn where each expression ends.
    struct Builder {
        private let layouts: [Layout]
        private let counts: [Int: RulesCoverage.Counts]
        /// The one decision reported on, if the report is of one (its expressions' values).
        private let trace: RulesTrace?
        /// The start offset of each expression seen so far, by id.
        private var starts: [Int: Int] = [:]

        init(sources: [RulesSource], counts: [Int: RulesCoverage.Counts], trace: RulesTrace? = nil) {
            self.trace = trace
            var layouts: [Layout] = []
            var firstID = 0
            for source in sources {
                let layout = Layout(source, firstID: firstID)
                firstID = layout.ids.upperBound
                layouts.append(layout)
            }
            self.layouts = layouts
            self.counts = counts
        }

        /// An entry for each `allow` condition, function body and `let` value, in source order, with the
        /// index of its file.
        mutating func reports(for program: RuleProgram) -> [(report: ExpressionReport, file: Int)] {
            var roots: [Int: Expression] = [:]
            func visit(_ match: RuleProgram.Match) {
                for allow in match.allows {
                    if let condition = allow.condition { roots[condition.id] = condition }
                }
                match.children.forEach(visit)
            }
            program.matches.forEach(visit)
            for function in program.functions {
                for binding in function.declaration.bindings { roots[binding.value.id] = binding.value }
                roots[function.declaration.body.id] = function.declaration.body
            }
            return roots.keys.sorted().compactMap { id -> (ExpressionReport, Int)? in
                guard let root = roots[id], !Self.isConstant(root),
                    let file = layouts.firstIndex(where: { $0.ids.contains(id) })
                else { return nil }
                return (report(for: root, in: layouts[file]), file)
            }
        }

        private mutating func report(for expression: Expression, in layout: Layout) -> ExpressionReport {
            let children = Self.reportedChildren(of: expression).map { report(for: $0, in: layout) }
            let start = start(of: expression, in: layout)
            let end = max(layout.end(of: expression), start + 1)
            let location = layout.location(at: start)
            return ExpressionReport(
                sourcePosition: SourcePosition(
                    fileName: layout.fileName, line: location.line, column: location.column, currentOffset: start,
                    endOffset: end - 1),
                values: Self.values(counts[expression.id] ?? RulesCoverage.Counts()),
                children: children, valueText: trace?.value(of: expression.id))
        }

        /// Where `expression` starts. A node written after its first operand (`a || b`, `a.b`, `f(x)`) starts
        /// where that operand does, including any parentheses around it (`(a || b) && c` starts at `(`).
        private mutating func start(of expression: Expression, in layout: Layout) -> Int {
            if let known = starts[expression.id] { return known }
            let start: Int
            if let first = Self.leadingOperand(of: expression) {
                start = layout.parenthesized(start: self.start(of: first, in: layout), end: layout.end(of: first))
            } else {
                start = layout.offset(of: expression.location)
            }
            starts[expression.id] = start
            return start
        }

        private static func values(_ counts: RulesCoverage.Counts) -> [ValueCount] {
            [
                ValueCount(value: .bool(true), count: counts.trueCount),
                ValueCount(value: .bool(false), count: counts.falseCount),
                ValueCount(value: .other, count: counts.valueCount),
                ValueCount(value: .error, count: counts.errorCount),
            ].filter { $0.count > 0 }
        }

        /// The operand a node is written after, if it starts with one.
        private static func leadingOperand(of expression: Expression) -> Expression? {
            switch expression.kind {
            case .binary(_, let first, _), .ternary(let first, _, _), .isType(let first, _), .member(let first, _),
                .index(let first, _), .slice(let first, _, _), .call(let first, _):
                return first
            default:
                return nil
            }
        }

        /// The subexpressions the evaluator evaluates on their own, constants aside: a call's callee is not
        /// one (only a method's receiver is), nor is a namespace such as `math` in `math.abs(x)`.
        private static func reportedChildren(of expression: Expression) -> [Expression] {
            let children: [Expression]
            switch expression.kind {
            case .null, .bool, .int, .float, .string, .bytes, .identifier: return []
            case .list(let elements): children = elements
            case .map(let entries): children = entries.flatMap { [$0.key, $0.value] }
            case .path(let segments):
                children = segments.compactMap {
                    if case .interpolation(let value) = $0 { return value }
                    return nil
                }
            case .member(let receiver, _): children = [receiver]
            case .index(let receiver, let index): children = [receiver, index]
            case .slice(let receiver, let from, let to): children = [receiver] + [from, to].compactMap { $0 }
            case .call(let callee, let arguments):
                if case .member(let receiver, _) = callee.kind, !isNamespace(receiver) {
                    children = [receiver] + arguments
                } else {
                    children = arguments
                }
            case .unary(_, let operand), .isType(let operand, _): children = [operand]
            case .binary(_, let lhs, let rhs): children = [lhs, rhs]
            case .ternary(let condition, let then, let otherwise): children = [condition, then, otherwise]
            }
            return children.filter { !isConstant($0) }
        }

        /// Whether `expression` names a namespace of functions (`math`, `hashing`, `firestore`...).
        private static func isNamespace(_ expression: Expression) -> Bool {
            guard case .identifier(let name) = expression.kind else { return false }
            return Stdlib.namespaces.contains(name) || name == "firestore"
        }

        /// Whether `expression` is a constant literal, which production leaves out of its report.
        private static func isConstant(_ expression: Expression) -> Bool {
            switch expression.kind {
            case .null, .bool, .int, .float, .string, .bytes: return true
            default: return false
            }
        }
    }
}

extension RulesCoverageReport {
    /// One rules file as the report measures it: Unicode scalar offsets of its lines, and where each of its
    /// expressions ends.
    struct Layout {
        let fileName: String
        /// The ids of the file's expressions.
        let ids: Range<Int>
        private let scalars: [Unicode.Scalar]
        /// The offset of each line's first scalar; lines end at `\n`, as the lexer counts them.
        private let lineStarts: [Int]
        /// Where each expression ends, by `id - ids.lowerBound`.
        private let ends: [SourceLocation]

        init(_ source: RulesSource, firstID: Int) {
            var parser = Parser(source.text, fileName: source.fileName, firstID: firstID)
            _ = parser.parseFile()
            fileName = source.fileName
            ids = firstID..<parser.nextID
            ends = parser.ends
            let scalars = Array(source.text.unicodeScalars)
            self.scalars = scalars
            lineStarts = [0] + scalars.indices.filter { scalars[$0] == "\n" }.map { $0 + 1 }
        }

        /// The offset of `location`, clamped to the text.
        func offset(of location: SourceLocation) -> Int {
            let line = min(max(location.line, 1), lineStarts.count)
            return min(lineStarts[line - 1] + max(location.column, 1) - 1, scalars.count)
        }

        /// The line and column of `offset`.
        func location(at offset: Int) -> SourceLocation {
            var low = 0
            var high = lineStarts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
            }
            return SourceLocation(line: low + 1, column: offset - lineStarts[low] + 1)
        }

        /// The offset just past `expression`'s last character.
        func end(of expression: Expression) -> Int {
            let index = expression.id - ids.lowerBound
            return ends.indices.contains(index) ? offset(of: ends[index]) : offset(of: expression.location)
        }

        /// The start of the text `start..<end` with the parentheses that enclose exactly it.
        func parenthesized(start: Int, end: Int) -> Int {
            var start = start
            var end = end
            while let open = nonSpace(from: start - 1, step: -1), scalars[open] == "(",
                let close = nonSpace(from: end, step: 1), scalars[close] == ")"
            {
                start = open
                end = close + 1
            }
            return start
        }

        /// The first offset from `offset` on, going by `step`, that holds no whitespace.
        private func nonSpace(from offset: Int, step: Int) -> Int? {
            var offset = offset
            while scalars.indices.contains(offset) {
                if !scalars[offset].properties.isWhitespace { return offset }
                offset += step
            }
            return nil
        }
    }
}
