/// Turns parsed files into a `RuleProgram`: lexical scopes with their functions, and the match tree.
struct ProgramBuilder {
    private(set) var program: RuleProgram
    private(set) var diagnostics: [Diagnostic] = []

    init(version: RulesVersion) {
        program = RuleProgram(version: version, service: .firestore, matches: [], scopes: [], functions: [])
    }

    mutating func add(_ file: RulesFile) {
        program.anchors.merge(file.anchors) { first, _ in first }
        if file.version == .v1 {
            diagnostics.append(
                Diagnostic(
                    .warning,
                    "Ruleset uses old version (version [1]). Please update to the latest version (version [2]): add rules_version = '2'; at the top.",
                    fileName: file.fileName, at: SourceLocation(line: 1, column: 1)))
        }
        for service in file.services {
            guard let kind = RulesService(rawValue: service.name) else {
                diagnostics.append(
                    Diagnostic(
                        .error, "unknown service '\(service.name)' (expected cloud.firestore or firebase.storage)",
                        fileName: file.fileName, at: service.location))
                continue
            }
            program.service = kind
            let scope = addScope(parent: nil, functions: service.functions, fileName: file.fileName)
            for match in service.matches {
                program.matches.append(build(match, parent: scope, fileName: file.fileName))
            }
        }
    }

    private mutating func addScope(parent: Int?, functions: [FunctionDeclaration], fileName: String) -> Int {
        let index = program.scopes.count
        program.scopes.append(RuleProgram.LexicalScope(parent: parent, functions: [:]))
        for function in functions {
            if program.scopes[index].functions[function.name] != nil {
                diagnostics.append(
                    Diagnostic(
                        .error, "Function is already defined. ('\(function.name)' is declared twice in the same scope)",
                        fileName: fileName, at: function.location))
                continue
            }
            program.scopes[index].functions[function.name] = program.functions.count
            program.functions.append(RuleProgram.Function(declaration: function, scope: index, fileName: fileName))
        }
        return index
    }

    private mutating func build(_ block: MatchBlock, parent: Int, fileName: String) -> RuleProgram.Match {
        let scope = addScope(parent: parent, functions: block.functions, fileName: fileName)
        checkPattern(block, fileName: fileName)
        let allows = block.allows.map { allow in
            RuleProgram.Allow(
                methods: Set(allow.methods.flatMap(\.concrete)), declaredMethods: allow.methods,
                condition: allow.condition, location: allow.location, fileName: fileName)
        }
        let children = block.matches.map { build($0, parent: scope, fileName: fileName) }
        return RuleProgram.Match(pattern: block.pattern, allows: allows, children: children, scope: scope)
    }

    /// Version 1 allows `{x=**}` only as the last segment of a match path.
    private mutating func checkPattern(_ block: MatchBlock, fileName: String) {
        guard program.version == .v1 else { return }
        for (index, segment) in block.pattern.enumerated() {
            if case .recursive(let name) = segment, index != block.pattern.count - 1 {
                diagnostics.append(
                    Diagnostic(
                        .error,
                        "recursive wildcard {\(name)=**} must be the last segment of the path in rules_version 1",
                        fileName: fileName, at: block.location))
            }
        }
    }
}
