import EmulatorCore
import Foundation

extension CompiledRuleset {
    /// Decides `request` as `evaluate(_:data:accessLimit:)` does and, when there is a `log` (the Emulator UI
    /// runs), records the decision there with a trace of every expression's value, whose report is built only
    /// when the UI asks for it. `caller` is the uid the request came with, if any.
    public func evaluate(
        _ request: RulesRequest, data: some RulesDataSource = NoRulesData(), accessLimit: Int = 10,
        log: RequestLog?, caller: String?
    ) -> RulesDecision {
        guard let log else { return evaluate(request, data: data, accessLimit: accessLimit) }
        let trace = RulesTrace()
        let decision = evaluate(request, data: data, accessLimit: accessLimit, trace: trace)
        log.record(
            RequestLogEntry(
                service: service.logName, method: request.method.rawValue, path: request.path.description,
                uid: caller, allowed: decision.allowed, explanation: decision.explanation
            ) { [self] in
                let report = RulesCoverageReport(ruleset: self, trace: trace)
                guard let data = try? JSONEncoder().encode(report.json), let json = try? JSONValue.parse(data) else {
                    return [:]
                }
                return json
            })
        return decision
    }
}

extension RulesService {
    /// The service's name in the request log: `firestore` or `storage`.
    var logName: String {
        switch self {
        case .firestore: return "firestore"
        case .storage: return "storage"
        }
    }
}
