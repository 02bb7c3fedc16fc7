import Foundation
import Visage
import VisageKernels

/// `detect`'s progress line for a long all-scales or any-rotation search: on a terminal's
/// standard error, once a search has run `after` seconds, the phase it is in and its model
/// runs so far against the runs it plans; cleared before the input's result is reported.
final class SearchProgressLine: Sendable {
  private let after: Double
  /// Whether the line is on the terminal; the lock also keeps writes to it whole.
  private let shown = LockedState(false)

  /// A line that appears after `VISAGE_SEARCH_PROGRESS_AFTER` seconds of a search (default 2,
  /// so that quick searches print nothing), or nil when standard error is not a terminal.
  static func forTerminal() -> SearchProgressLine? {
    guard isatty(STDERR_FILENO) != 0 else { return nil }
    let after = ProcessInfo.processInfo.environment["VISAGE_SEARCH_PROGRESS_AFTER"].flatMap(Double.init) ?? 2
    return SearchProgressLine(after: after)
  }

  private init(after: Double) { self.after = after }

  /// Shows where the search is, if it has run long enough.
  func update(_ progress: SearchProgress) {
    guard progress.seconds >= after else { return }
    let percent = min(99, 100 * progress.runs / max(progress.plannedRuns, 1))
    let line = String(
      format: "\r\u{1B}[Ksearching: %@, %d of about %d model runs (%d%%), %.0f s", progress.phase, progress.runs,
      progress.plannedRuns, percent, progress.seconds)
    shown.withLock { shown in
      FileHandle.standardError.write(Data(line.utf8))
      shown = true
    }
  }

  /// Removes the line, if one is shown.
  func clear() {
    shown.withLock { shown in
      guard shown else { return }
      FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
      shown = false
    }
  }
}
