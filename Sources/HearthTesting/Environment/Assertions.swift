/// A rules assertion that did not hold. Thrown by `assertSucceeds` and `assertFails`, so that Swift Testing
/// and XCTest both report it as the test's failure; both attribute a thrown error to the test function, so
/// the assertion's own file and line are in the description.
public struct RulesAssertionFailure: Error, CustomStringConvertible {
    /// What was expected and what happened.
    public var message: String
    /// Where the assertion was made.
    public var file: String
    /// The line of the assertion.
    public var line: Int

    /// `file:line: message`.
    public var description: String { "\(file):\(line): \(message)" }
}

/// Runs `operation` and returns its result; throws `RulesAssertionFailure` (with the error) if it throws,
/// as rules-unit-testing's `assertSucceeds`.
@discardableResult
public func assertSucceeds<T>(
    isolation: isolated (any Actor)? = #isolation, _ operation: () async throws -> T,
    file: StaticString = #filePath, line: UInt = #line
) async throws -> T {
    do {
        return try await operation()
    } catch {
        throw RulesAssertionFailure(
            message: "Expected request to succeed, but it failed: \(error)", file: "\(file)", line: Int(line))
    }
}

/// Runs `operation` and returns the `ClientError` with which the rules refused it (`PERMISSION_DENIED`);
/// throws `RulesAssertionFailure` if it succeeds or fails for another reason, as rules-unit-testing's
/// `assertFails`.
@discardableResult
public func assertFails<T>(
    isolation: isolated (any Actor)? = #isolation, _ operation: () async throws -> T,
    file: StaticString = #filePath, line: UInt = #line
) async throws -> ClientError {
    do {
        _ = try await operation()
    } catch let error as ClientError where error.code == .permissionDenied {
        return error
    } catch {
        throw RulesAssertionFailure(
            message: "Expected PERMISSION_DENIED but got an unexpected error: \(error)", file: "\(file)", line: Int(line))
    }
    throw RulesAssertionFailure(message: "Expected request to fail, but it succeeded.", file: "\(file)", line: Int(line))
}
