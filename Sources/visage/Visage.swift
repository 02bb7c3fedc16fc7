import ArgumentParser
import Foundation

@main
struct Visage: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "visage",
    abstract: "Face detection and face landmarks in pure Swift, and the TFLite runtime beneath them.",
    subcommands: [Detect.self, Landmark.self, Analyze.self, Run.self, Inspect.self, Bench.self])

  /// Runs the command, with the exit statuses of the command-line contract: 0 on success, 1
  /// when an input failed, 2 for usage errors (argument parser's own would be 64).
  static func main() {
    do {
      var command = try parseAsRoot()
      try command.run()
    } catch {
      let code = exitCode(for: error)
      if code == .validationFailure {
        FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
        Foundation.exit(2)
      }
      exit(withError: error)
    }
  }
}
