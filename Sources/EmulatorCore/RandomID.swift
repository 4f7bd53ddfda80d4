/// Random identifiers in the alphabets Firebase uses.
public enum RandomID {
    /// Upper- and lower-case letters and digits.
    public static let alphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    /// The base64url alphabet.
    public static let base64URL = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    /// Decimal digits.
    public static let digits = Array("0123456789")

    /// `length` characters drawn uniformly from `alphabet`.
    public static func make(length: Int, from alphabet: [Character] = alphanumerics) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
