import Foundation

/// Whose words an option is named in: the command line's (`--num-faces`), visage-server's query
/// (`num-faces`) or the Python package's (`num_faces`). An error names the option as the user
/// wrote it, whichever front end they came through.
public enum OptionLanguage: Sendable {
  case commandLine, query, python

  /// The option of the table named `name` (a table name, or one of `TaskSettings`'s base
  /// settings: `model`, `threads`, `smoothing-filter`), as this language writes it.
  public func name(_ name: String, of task: FaceTaskKind) -> String {
    switch self {
    case .commandLine:
      name == "smoothing-filter" ? "--smoothing-min-cutoff or --smoothing-beta" : "--" + name
    case .query: "`\(name)`"
    case .python:
      Self.pythonBase[name] ?? TaskOptions.table(for: task).first { $0.name == name }?.pythonName
        ?? name.replacingOccurrences(of: "-", with: "_")
    }
  }

  /// `message`, one of the library's, with each of its option names (`numFaces`, alone or in
  /// backticks) put as this language names the option.
  public func reword(_ message: String, task: FaceTaskKind) -> String {
    var names = Self.libraryBase
    for option in TaskOptions.table(for: task) {
      if let property = option.property { names[property] = option.name }
    }
    var text = message
    for (property, option) in names {
      let spelled = name(option, of: task)
      text = text.replacingOccurrences(of: "`\(property)`", with: spelled)
      text = text.replacingOccurrences(of: "\\b\(property)\\b", with: spelled, options: .regularExpression)
    }
    return text
  }

  /// The library's names of the base settings, by their names here.
  private static let libraryBase = [
    "threadCount": "threads", "landmarkFilter": "smoothing-filter", "modelAssetPath": "model",
  ]
  private static let pythonBase = ["threads": "thread_count", "model": "model_asset_path"]
}

/// An option a front end was given that the task cannot take: named by the table (or the
/// base setting), worded for the user by `message(in:)`.
public struct OptionError: Error, Sendable, Equatable {
  /// What is wrong.
  public enum Problem: Sendable, Equatable {
    /// The task has no option of this name.
    case unknown
    /// The option does not take the value given (the value as given).
    case notTaken(String)
    /// The option cannot go with another: the text says why, in the table's names.
    case conflict(String)
    /// The library refused the options: its message, in the library's names.
    case library(String)
  }

  public let task: FaceTaskKind
  /// The option's table name; for `.library`, empty.
  public let option: String
  public let problem: Problem

  public init(_ task: FaceTaskKind, _ option: String, _ problem: Problem) {
    (self.task, self.option, self.problem) = (task, option, problem)
  }

  /// The error in the front end's words.
  public func message(in language: OptionLanguage) -> String {
    let named = language.name(option, of: task)
    switch problem {
    case .unknown:
      return "unknown option \(named)"
    case .notTaken(let value):
      let expectation = TaskOptions.table(for: task).first { $0.name == option }?.expectation(in: language) ?? ""
      return "option \(named) \(expectation), got '\(value)'"
    case .conflict(let why):
      var text = why
      for other in TaskOptions.table(for: task).map(\.name) + ["model"] {
        text = text.replacingOccurrences(of: "{\(other)}", with: language.name(other, of: task))
      }
      return text
    case .library(let message):
      return language.reword(message, task: task)
    }
  }
}
