import Testing
import VisageTestSupport

/// `detect`'s progress line for a long wider search: on a terminal only (here a pseudo-terminal
/// from `script`), from `VISAGE_SEARCH_PROGRESS_AFTER` seconds into a search (0 here, so that
/// the astronaut's short search shows it), cleared before the result.
@Suite struct SearchProgressCLITests {
  static let command =
    "$VISAGE detect --range all --any-rotation --output json Tests/Fixtures/images/astronaut.png"

  @Test func aTerminalSeesTheSearchPhases() throws {
    let run = try CLI.shell("VISAGE_SEARCH_PROGRESS_AFTER=0 script -qec \"\(Self.command)\" /dev/null")
    #expect(run.status == 0, "\(run.stdout)")
    #expect(run.stdout.contains("searching: short whole 0°, 0 of about "))
    #expect(run.stdout.contains("searching: looks, "))
    // Cleared before the result line, which starts a line of its own.
    #expect(run.stdout.contains("\r\u{1B}[K{\"source\""), "\(run.stdout.suffix(300))")
  }

  @Test func otherwiseNothingIsPrinted() throws {
    let run = try CLI.shell("VISAGE_SEARCH_PROGRESS_AFTER=0 \(Self.command) 2>&1 >/dev/null")
    #expect(run.status == 0 && !run.stdout.contains("searching"), "\(run.stdout)")
  }

  /// `--profile-search` with task copies sharing a batch (`--threads 2`, any rotation): each
  /// input's profile line is its own, in input order, and the results are those of one task.
  @Test func eachInputsProfileWithTaskCopies() throws {
    let inputs = ["astronaut.png", "camera.png", "astronaut.png"].map { "Tests/Fixtures/images/" + $0 }
    let run = try CLI.run(
      ["detect", "--any-rotation", "--profile-search", "--threads", "2", "--output", "json"] + inputs)
    let single = try CLI.run(["detect", "--any-rotation", "--threads", "1", "--output", "json"] + inputs)
    #expect(run.status == 0 && run.stdout == single.stdout, "\(run.stderr)")
    let profiles = run.stderr.split(separator: "\n")
    #expect(profiles.count == 3, "\(run.stderr)")
    for (line, source) in zip(profiles, inputs) {
      #expect(line.hasPrefix(#"{"source": "\#(source)", "searchProfile": "#) && line.contains("short whole 270°"))
    }
  }
}
