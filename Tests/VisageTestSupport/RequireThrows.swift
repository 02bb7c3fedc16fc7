import Testing

/// Why `requireThrows` stopped a test: `body` threw nothing, or an error of another type.
public struct RequiredErrorMissing: Error, CustomStringConvertible {
  public let description: String
}

/// The error of type `E` that `body` throws; records an issue and throws when it throws none
/// or another type. What Swift Testing's `#require(throws:)` returns from 6.1 on, written
/// out because the test targets also build with Swift 6.0 (the arm64 run, Tools/arm64).
public func requireThrows<E: Error, R>(
  _ errorType: E.Type, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () throws -> R
) throws -> E {
  let problem: String
  do {
    _ = try body()
    problem = "expected an error of type \(E.self), but nothing was thrown"
  } catch let error as E {
    return error
  } catch {
    problem = "expected an error of type \(E.self), got \(type(of: error)): \(error)"
  }
  let message = comment.map { "\(problem) (\($0.rawValue))" } ?? problem
  Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
  throw RequiredErrorMissing(description: message)
}
