import Testing
import VisageHosting

@testable import VisageCommandLine

/// The command line fills every option of the one table into the settings VisageHosting makes
/// the library's options from (`OptionApplicationTests` holds every setting to reach the
/// task): `visage TASK --option value` parsed gives settings with that value.
@Suite struct CLIOptionTests {
  /// The settings the subcommand's arguments give, parsed and checked as `visage` does.
  static func settings(_ task: FaceTaskKind, _ arguments: [String]) throws -> TaskSettings {
    let command = try Visage.parseAsRoot([task.rawValue] + arguments + ["photo.png"])
    switch command {
    case let detect as Detect: return try detect.settings()
    case let landmark as Landmark: return try landmark.settings()
    case let analyze as Analyze: return try analyze.settings()
    default: throw CLIError("not a face task: \(type(of: command))")
    }
  }

  @Test(arguments: FaceTaskKind.allCases) func everyFlagReachesTheSettings(_ task: FaceTaskKind) throws {
    let plain = try Self.settings(task, [])
    // The decoding's option is read by the input, not the task.
    for option in TaskOptions.table(for: task) where option.name != "ignore-exif" {
      let value = option.alternativeValue
      let flag = option.kind == .flag ? ["--\(option.name)"] : ["--\(option.name)", value]
      let settings = try Self.settings(task, flag)
      #expect(settings.values[option.name] == value, "visage \(task.rawValue) \(flag.joined(separator: " "))")
      #expect(plain.values[option.name] != value)
    }
  }

  @Test func theBaseFlagsReachTheSettings() throws {
    let settings = try Self.settings(
      .landmark,
      ["--model", "mine.task", "--threads", "3", "--running-mode", "video", "--smoothing-beta", "7"])
    #expect(settings.model == "mine.task" && settings.threadCount == 3 && settings.runningMode == .video)
    #expect(settings.landmarkFilter.beta == 7)
  }
}
