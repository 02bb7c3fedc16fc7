import ArgumentParser
import Foundation
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
/// the library's message, its option names put as the flags that set them (`flags` for the
/// command's own, over `FlagNames.common`).
func validateThroughLibrary(flags: [String: String] = [:], _ body: () throws(VisionTaskError) -> Void) throws {
  do { try body() } catch { throw ValidationError(FlagNames.reword("\(error)", flags)) }
}

/// Creates a task: an option the library refuses is a usage error (status 2), anything else it
/// refuses (a missing or unusable model) fails the run (status 1), with the library's message
/// worded as `validateThroughLibrary` words it.
func makeTask<Task>(flags: [String: String] = [:], _ body: () throws -> Task) throws -> Task {
  do { return try body() } catch let error as VisionTaskError {
    if case .invalidOption = error { throw ValidationError(FlagNames.reword("\(error)", flags)) }
    throw SetupError(FlagNames.reword("\(error)", flags))
  }
}

/// The library's option names as the command line's flags, so that an error names what the
/// user typed (`--max-faces`, not `maximumFaceCount`).
enum FlagNames {
  static let common = [
    "threadCount": "--threads", "numFaces": "--num-faces", "maximumFaceCount": "--max-faces",
    "minFaceSize": "--min-face-size", "minDetectionConfidence": "--min-detection-confidence",
    "minSuppressionThreshold": "--min-suppression-threshold",
    "minFacePresenceConfidence": "--min-face-presence-confidence",
    "minFaceDetectionConfidence": "--min-face-detection-confidence",
    "minTrackingConfidence": "--min-tracking-confidence", "cameraVerticalFieldOfView": "--camera-fov",
    "landmarkFilter": "--smoothing-min-cutoff or --smoothing-beta", "outputFaceBlendshapes": "--blendshapes",
  ]

  /// `message` with each library name (alone, or in backticks) put as its flag.
  static func reword(_ message: String, _ flags: [String: String]) -> String {
    var text = message
    for (name, flag) in common.merging(flags, uniquingKeysWith: { $1 }) {
      text = text.replacingOccurrences(of: "`\(name)`", with: flag)
      text = text.replacingOccurrences(of: "\\b\(name)\\b", with: flag, options: .regularExpression)
    }
    return text
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
