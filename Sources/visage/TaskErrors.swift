import ArgumentParser
import Visage

/// A failure that stops a command before any input is processed though its arguments are
/// well formed: a model or a file that cannot be read or used. The command line exits with
/// status 1 (a failed input), not 2 (usage), and says why on stderr.
struct SetupError: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) { self.description = description }
}

/// Checks options the way the library checks them: `body` builds the library's options from
/// the arguments and calls their `validate()`; what the library refuses is a usage error with
/// the library's own message.
func validateThroughLibrary(_ body: () throws(VisionTaskError) -> Void) throws {
  do { try body() } catch { throw ValidationError("\(error)") }
}

/// Creates a task: an option the library refuses is a usage error (status 2), anything else it
/// refuses (a missing or unusable model) fails the run (status 1), with the library's message.
func makeTask<Task>(_ body: () throws -> Task) throws -> Task {
  do { return try body() } catch let error as VisionTaskError {
    if case .invalidOption = error { throw ValidationError("\(error)") }
    throw SetupError("\(error)")
  }
}

extension CLIRunningMode {
  /// A live-stream handler that is never called, for checking options before the task's own
  /// exists: live-stream mode needs one, and the other modes refuse one.
  func placeholderHandler<Output>() -> (@Sendable (Output?, Int, (any Error)?) -> Void)? {
    guard self == .liveStream else { return nil }
    let ignore: @Sendable (Output?, Int, (any Error)?) -> Void = { _, _, _ in }
    return ignore
  }
}
