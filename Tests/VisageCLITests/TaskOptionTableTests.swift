import Foundation
import Testing
import VisageHosting

/// The command line's detect, landmark and analyze flags are the one option table's
/// (VisageHosting's `TaskOptions`): the same names, help, defaults and choices; every other
/// flag is one the table lists as the command line's own.
@Suite struct TaskOptionTableTests {
  @Test(arguments: FaceTaskKind.allCases) func theFlagsAreTheTables(_ task: FaceTaskKind) throws {
    let run = try CLI.run([task.rawValue, "--experimental-dump-help"])
    #expect(run.status == 0, "\(run.stderr)")
    let dump = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let arguments = try #require((dump["command"] as? [String: Any])?["arguments"] as? [[String: Any]])
    var seen: Set<String> = []
    for argument in arguments {
      let names = (argument["names"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "long" }
      guard let name = names.first?["name"] as? String, name != "help" else { continue }
      seen.insert(name)
      guard let option = TaskOptions.table(for: task).first(where: { $0.name == name }) else {
        #expect(TaskOptions.commandLineOnly.contains(name), "--\(name) is in neither the table nor commandLineOnly")
        continue
      }
      #expect(argument["abstract"] as? String == option.help, "--\(name)'s help")
      let isFlag = argument["kind"] as? String == "flag"
      #expect(isFlag == (option.kind == .flag), "--\(name) is a flag in one and not the other")
      let cliDefault = argument["defaultValue"] as? String
      if let number = option.defaultValue.flatMap(Double.init) {
        #expect(cliDefault.flatMap(Double.init) == number, "--\(name)'s default: \(cliDefault ?? "none")")
      } else if !isFlag {
        #expect(cliDefault == option.defaultValue, "--\(name)'s default")
      }
      if case .choice(let choices) = option.kind {
        #expect(argument["allValues"] as? [String] == choices, "--\(name)'s choices")
      }
    }
    let missing = TaskOptions.table(for: task).map(\.name).filter { !seen.contains($0) }
    #expect(missing.isEmpty, "visage \(task.rawValue) lacks \(missing)")
  }
}
