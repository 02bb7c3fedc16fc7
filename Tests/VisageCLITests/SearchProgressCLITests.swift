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
}
