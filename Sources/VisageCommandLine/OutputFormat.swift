import ArgumentParser
import Foundation

/// `--output json|text`: JSON Lines for scripts, a short summary for people.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
  case json
  case text

  /// Text when stdout is a terminal, JSON otherwise, as the command-line contract says.
  static var automatic: OutputFormat { isatty(STDOUT_FILENO) != 0 ? .text : .json }
}
