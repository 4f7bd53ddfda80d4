import EmulatorCore
import Testing

@testable import SecurityRules

#if canImport(Glibc)
import Glibc
#endif

/// Property tests over generated inputs: the parser never crashes or hangs (the time limits are a hang
/// guard, not a measurement), and what it returns is always well formed.
@Suite struct ParserFuzzTests {
    /// Pieces of rules text, valid and not, that random inputs are built from.
    static let fragments = [
        "service", "cloud.firestore", "firebase.storage", "rules_version", "=", "'2'", "'1'", "match", "/", "/a",
        "/{x}", "/{y=**}", "{", "}", "(", ")", "[", "]", ",", ";", ":", "?", ".", "allow", "read", "write", "get",
        "list", "create", "update", "delete", "if", "function", "f", "let", "return", "x", "request.auth.uid",
        "true", "false", "null", "1", "0x1f", "1.5", ".5", "1e3", "99999999999999999999", "'s'", "\"d\"",
        "'open", "r'raw'", "b'\\xff'", "'''", "'\\q'", "&&", "||", "!", "-", "+", "*", "%", "==", "!=", "<", "<=",
        ">", ">=", "in", "is", "string", "$(", "$", "/*", "*/", "//", "\n", "#", "&", "|", "é", "😀", "(default)",
        "=**", "**", "/databases/$(database)/documents", "\\", "\t", "\"",
    ]

    /// Parses `text` and checks what must hold whatever the input.
    static func check(_ text: String, firstID: Int = 0) {
        let source = RulesSource(fileName: "fuzz.rules", text: text)
        let result = Parser.parse(source, firstID: firstID)
        let lines = text.utf8.count { $0 == UInt8(ascii: "\n") } + 1
        for diagnostic in result.diagnostics {
            #expect(diagnostic.location.line >= 1 && diagnostic.location.line <= lines, "\(text.debugDescription)")
            #expect(diagnostic.location.column >= 1)
            #expect(!diagnostic.message.isEmpty)
        }
        #expect(result.nextID >= firstID)
        let hasErrors = result.diagnostics.contains { $0.severity == .error }
        if !hasErrors {
            #expect(result.file != nil, "\(text.debugDescription)")
        }
        if let file = result.file {
            let ids = Self.ids(in: file)
            #expect(Set(ids).count == ids.count, "duplicate ids: \(text.debugDescription)")
            #expect(ids.allSatisfy { (firstID..<result.nextID).contains($0) })
            if !hasErrors {
                #expect(ids.count == result.nextID - firstID)
            }
        }
        #expect(Parser.parse(source, firstID: firstID).diagnostics == result.diagnostics, "not deterministic")
    }

    /// Every expression id in the file.
    static func ids(in file: RulesFile) -> [Int] {
        var ids: [Int] = []
        func collect(_ expression: Expression) {
            ids.append(expression.id)
            switch expression.kind {
            case .null, .bool, .int, .float, .string, .bytes, .identifier: break
            case .list(let elements): elements.forEach(collect)
            case .map(let entries): entries.forEach { collect($0.key); collect($0.value) }
            case .path(let segments):
                for case .interpolation(let value) in segments { collect(value) }
            case .member(let receiver, _): collect(receiver)
            case .index(let receiver, let index): collect(receiver); collect(index)
            case .slice(let receiver, let from, let to): collect(receiver); from.map(collect); to.map(collect)
            case .call(let callee, let arguments): collect(callee); arguments.forEach(collect)
            case .unary(_, let operand): collect(operand)
            case .binary(_, let lhs, let rhs): collect(lhs); collect(rhs)
            case .ternary(let condition, let then, let otherwise): collect(condition); collect(then); collect(otherwise)
            case .isType(let operand, _): collect(operand)
            }
        }
        func function(_ declaration: FunctionDeclaration) {
            declaration.bindings.forEach { collect($0.value) }
            collect(declaration.body)
        }
        func walk(_ match: MatchBlock) {
            match.functions.forEach(function)
            match.allows.compactMap(\.condition).forEach(collect)
            match.matches.forEach(walk)
        }
        // Functions declared outside the service are shared by every service: count them once.
        var seen = Set<Int>()
        for service in file.services {
            for declaration in service.functions where seen.insert(declaration.body.id).inserted { function(declaration) }
            service.matches.forEach(walk)
        }
        return ids
    }

    @Test(.timeLimit(.minutes(1))) func randomTokenSequences() {
        var random = SplitMix64(seed: 0x5EC0_0001)
        for _ in 0..<4000 {
            let count = Int.random(in: 0...60, using: &random)
            let text = (0..<count).map { _ in
                Self.fragments.randomElement(using: &random)! + ["", " ", " ", "\n"].randomElement(using: &random)!
            }.joined()
            Self.check(text, firstID: Int.random(in: 0...1000, using: &random))
        }
    }

    @Test(.timeLimit(.minutes(1))) func randomCharacters() {
        var random = SplitMix64(seed: 0x5EC0_0002)
        let alphabet = Array("abz_09 \n\t{}()[]/$=*.,;:'\"\\?!&|<>+-%#é😀\r")
        for _ in 0..<3000 {
            let count = Int.random(in: 0...120, using: &random)
            Self.check(String((0..<count).map { _ in alphabet.randomElement(using: &random)! }))
        }
    }

    @Test(.timeLimit(.minutes(1))) func mutationsOfValidRules() {
        var random = SplitMix64(seed: 0x5EC0_0003)
        let seeds = [ParserTests.ChatRules.firestore, ParserTests.ChatRules.storage].map(Array.init)
        for _ in 0..<3000 {
            var text = seeds.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                Self.mutate(&text, using: &random)
            }
            Self.check(String(text))
        }
    }

    /// Deletes, inserts, duplicates, truncates or swaps a random part of `text`.
    static func mutate(_ text: inout [Character], using random: inout SplitMix64) {
        let position = text.isEmpty ? 0 : Int.random(in: 0..<text.count, using: &random)
        let length = min(Int.random(in: 1...20, using: &random), text.count - position)
        switch Int.random(in: 0..<5, using: &random) {
        case 0:
            text.removeSubrange(position..<position + length)
        case 1:
            text.insert(contentsOf: fragments.randomElement(using: &random)!, at: position)
        case 2:
            text.insert(contentsOf: text[position..<position + length], at: position)
        case 3:
            text.removeSubrange(position...)
        default:
            if !text.isEmpty { text.swapAt(position, Int.random(in: 0..<text.count, using: &random)) }
        }
    }

    @Test(.timeLimit(.minutes(1))) func validRulesParseCleanly() {
        for text in [ParserTests.ChatRules.firestore, ParserTests.ChatRules.storage] {
            let result = Parser.parse(RulesSource(fileName: "chat.rules", text: text))
            #expect(result.diagnostics.isEmpty)
            Self.check(text, firstID: 7)
        }
    }

    #if canImport(Glibc)
    /// A parse run on a thread of its own, to give it a small stack.
    final class ThreadRun: @unchecked Sendable {  // the thread writes `results` before pthread_join returns
        let inputs: [String]
        var results: [Bool] = []

        init(_ inputs: [String]) { self.inputs = inputs }

        /// Whether each input parsed without diagnostics, parsing on a thread with a `stackSize`-byte stack.
        func run(stackSize: Int) -> [Bool] {
            let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
            defer { attributes.deallocate() }
            pthread_attr_init(attributes)
            pthread_attr_setstacksize(attributes, stackSize)
            var thread: pthread_t = 0
            let context = Unmanaged.passRetained(self).toOpaque()
            let created = pthread_create(&thread, attributes, { raw in
                let run = Unmanaged<ThreadRun>.fromOpaque(raw!).takeRetainedValue()
                run.results = run.inputs.map { text in
                    text.hasPrefix("service")
                        ? Parser.parse(RulesSource(fileName: "deep", text: text)).diagnostics.isEmpty
                        : Parser.parseExpression(text).diagnostics.isEmpty
                }
                return nil
            }, context)
            precondition(created == 0)
            pthread_join(thread, nil)
            pthread_attr_destroy(attributes)
            return results
        }
    }

    /// The deepest nesting the limits allow parses (debug build) on a 384 KiB stack: a quarter below the
    /// 512 KiB of a macOS secondary thread, for margin.
    @Test func deepestAllowedNestingFitsASmallStack() {
        let depth = Parser.maxNesting - 1
        func wrap(_ open: String, _ inner: String, _ close: String) -> String {
            String(repeating: open, count: depth) + inner + String(repeating: close, count: depth)
        }
        let inputs = [
            wrap("(", "1", ")"), wrap("[", "", "]"), wrap("{'a': ", "1", "}"), wrap("f(", "", ")"), wrap("a[", "1", "]"),
            wrap("/a/$(", "b", ")"), wrap("a ? b : ", "c", ""), wrap("!", "a", ""), wrap("1 + (", "1", ")"),
            String(repeating: "a.b(c.d[", count: depth / 2) + "1" + String(repeating: "])", count: depth / 2),
            "service cloud.firestore {" + wrap("match /a {", "allow read: if " + wrap("(", "1", ")") + ";", "}") + "}",
        ]
        #expect(ThreadRun(inputs).run(stackSize: 384 * 1024) == inputs.map { _ in true })
    }
    #endif

    @Test(.timeLimit(.minutes(1))) func precedenceRoundTrips() {
        var random = SplitMix64(seed: 0x5EC0_0004)
        for _ in 0..<3000 {
            let tree = Tree.random(depth: 5, using: &random)
            for text in [tree.source.text, tree.parenthesized] {
                let parsed = Parser.parseExpression(text)
                #expect(parsed.diagnostics.isEmpty, "\(text): \(parsed.diagnostics)")
                #expect(parsed.expression.map(ParserTests.Rendered.expression) == tree.rendered, "\(text)")
            }
        }
    }
}

extension ParserFuzzTests {
    /// A random expression, printed with as few parentheses as the documented precedence needs, so that
    /// parsing it back checks precedence and associativity.
    indirect enum Tree {
        case leaf(String)
        case unary(String, Tree)
        case binary(String, Tree, Tree)
        case isType(Tree, String)
        case ternary(Tree, Tree, Tree)
        case member(Tree, String)
        case index(Tree, Tree)
        case call(String, [Tree])

        /// Binding strength of each binary operator (higher binds tighter).
        static let precedence = [
            "||": 1, "&&": 2, "==": 3, "!=": 3, "in": 5, "<": 6, "<=": 6, ">": 6, ">=": 6, "+": 7, "-": 7, "*": 8, "/": 8, "%": 8,
        ]

        static func random(depth: Int, using random: inout SplitMix64) -> Tree {
            let leaves = ["a", "b", "c", "x", "1", "2"]
            guard depth > 0, Int.random(in: 0..<4, using: &random) > 0 else {
                return .leaf(leaves.randomElement(using: &random)!)
            }
            let next = { (random: inout SplitMix64) in Tree.random(depth: depth - 1, using: &random) }
            switch Int.random(in: 0..<9, using: &random) {
            case 0: return .unary(["!", "-"].randomElement(using: &random)!, next(&random))
            case 1: return .isType(next(&random), ["string", "int", "map_diff"].randomElement(using: &random)!)
            case 2: return .ternary(next(&random), next(&random), next(&random))
            case 3: return .member(next(&random), ["f", "in", "size"].randomElement(using: &random)!)
            case 4: return .index(next(&random), next(&random))
            case 5: return .call(["f", "g"].randomElement(using: &random)!, (0..<Int.random(in: 0...2, using: &random)).map { _ in next(&random) })
            default: return .binary(precedence.keys.sorted().randomElement(using: &random)!, next(&random), next(&random))
            }
        }

        /// The text with minimal parentheses, and its precedence (0 ternary ... 10 postfix, 11 atom).
        var source: (text: String, precedence: Int) {
            func operand(_ tree: Tree, needs minimum: Int) -> String {
                let (text, precedence) = tree.source
                return precedence < minimum ? "(\(text))" : text
            }
            switch self {
            case .leaf(let name): return (name, 11)
            case .unary(let op, let operand1):
                // `--x` does not parse (no decrement operator): a second minus is spaced off.
                let text = operand(operand1, needs: 9)
                return (op + (op == "-" && text.hasPrefix("-") ? " " : "") + text, 9)
            case .binary(let op, let lhs, let rhs):
                let level = Self.precedence[op]!
                return ("\(operand(lhs, needs: level)) \(op) \(operand(rhs, needs: level + 1))", level)
            case .isType(let operand1, let type): return ("\(operand(operand1, needs: 4)) is \(type)", 4)
            case .ternary(let condition, let then, let otherwise):
                return ("\(operand(condition, needs: 1)) ? \(then.source.text) : \(otherwise.source.text)", 0)
            case .member(let receiver, let name): return ("\(operand(receiver, needs: 10)).\(name)", 10)
            case .index(let receiver, let index): return ("\(operand(receiver, needs: 10))[\(index.source.text)]", 10)
            case .call(let name, let arguments): return ("\(name)(\(arguments.map(\.source.text).joined(separator: ", ")))", 10)
            }
        }

        /// The text with every compound operand parenthesized.
        var parenthesized: String {
            switch self {
            case .leaf(let name): return name
            case .unary(let op, let operand): return "\(op)(\(operand.parenthesized))"
            case .binary(let op, let lhs, let rhs): return "(\(lhs.parenthesized)) \(op) (\(rhs.parenthesized))"
            case .isType(let operand, let type): return "(\(operand.parenthesized)) is \(type)"
            case .ternary(let c, let a, let b): return "(\(c.parenthesized)) ? (\(a.parenthesized)) : (\(b.parenthesized))"
            case .member(let receiver, let name): return "(\(receiver.parenthesized)).\(name)"
            case .index(let receiver, let index): return "(\(receiver.parenthesized))[\(index.parenthesized)]"
            case .call(let name, let arguments): return "\(name)(\(arguments.map(\.parenthesized).joined(separator: ", ")))"
            }
        }

        /// What `Rendered.expression` prints for the parsed tree.
        var rendered: String {
            switch self {
            case .leaf(let name): return name
            case .unary(let op, let operand): return "(\(op)\(operand.rendered))"
            case .binary(let op, let lhs, let rhs): return "(\(lhs.rendered) \(op) \(rhs.rendered))"
            case .isType(let operand, let type): return "(\(operand.rendered) is \(type))"
            case .ternary(let c, let a, let b): return "(\(c.rendered) ? \(a.rendered) : \(b.rendered))"
            case .member(let receiver, let name): return "\(receiver.rendered).\(name)"
            case .index(let receiver, let index): return "\(receiver.rendered)[\(index.rendered)]"
            case .call(let name, let arguments): return "\(name)(\(arguments.map(\.rendered).joined(separator: ", ")))"
            }
        }
    }
}
