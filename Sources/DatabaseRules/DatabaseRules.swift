/// database.rules.json (being built).
enum DatabaseRulesPlaceholder {}
