extension String {
    /// The last `/`-separated segment (the id of a document path, the name of an object).
    var lastPathSegment: String {
        split(separator: "/").last.map(String.init) ?? ""
    }
}
