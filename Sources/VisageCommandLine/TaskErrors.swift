import ArgumentParser
import Foundation
import Visage
import VisageHosting

/// A failure that stops a command before any input is processed though its arguments are
/// well formed: a model or a file that cannot be read or used. The command line exits with
/// status 1 (a failed input), not 2 (usage), and says why on stderr.
struct SetupError: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) { self.description = description }
}

/// Runs `body`, which makes the library's options from the arguments through VisageHosting's
/// `TaskSettings`: an option refused there (or by the library's `validate()`) is a usage error
/// (status 2) naming the flag.
func commandLine<T>(_ body: () throws(OptionError) -> T) throws -> T {
  do { return try body() } catch { throw ValidationError(error.message(in: .commandLine)) }
}

/// Checks options as the library checks them (`body` calls their `validate()`): what it refuses
/// is a usage error, its option names put as the flags that set them.
func validateThroughLibrary(_ task: FaceTaskKind, _ body: () throws(VisionTaskError) -> Void) throws {
  do { try body() } catch { throw ValidationError(OptionLanguage.commandLine.reword("\(error)", task: task)) }
}

/// Creates a task: an option the library refuses is a usage error (status 2), anything else it
/// refuses (a missing or unusable model) fails the run (status 1), with the library's message
/// worded for the command line.
func makeTask<Task>(_ task: FaceTaskKind, _ body: () throws -> Task) throws -> Task {
  do { return try body() } catch let error as VisionTaskError {
    let message = OptionLanguage.commandLine.reword("\(error)", task: task)
    if case .invalidOption = error { throw ValidationError(message) }
    throw SetupError(message)
  }
}

extension TaskModels {
  /// Stand-ins for checking options before the models are looked up.
  static let placeholders = TaskModels(bundle: "face_landmarker.task", fullRange: "face_detection_full_range.tflite")

  /// The bundled models; with `--model` given, a missing `Weights/` folder is an error only
  /// when a bundled model is used (the task then names the file it cannot open).
  static func forCommandLine(model: String?) throws -> TaskModels {
    do { return try bundled() } catch {
      if model == nil { throw error }
      return placeholders
    }
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
