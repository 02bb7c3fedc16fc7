import ArgumentParser
import Foundation
import Visage
import VisageImageIO

/// The image arguments of `detect` (and later `landmark`/`analyze`): decoded one at a
/// time, with the error reporting and progress the command-line contract asks for.
struct InputFrames {
  let paths: [String]
  /// Frames per second, for video and live-stream timestamps.
  let fps: Double

  /// The timestamp of frame `index`: round(index · 1000 / fps) ms.
  func timestamp(_ index: Int) -> Int { Int((Double(index) * 1000 / fps).rounded()) }

  /// Where the annotated copy of input `index` goes: `path` itself for one input, else a
  /// PNG named after the input inside the folder `path`.
  func annotationPath(_ path: String, index: Int) throws -> String {
    if paths.count == 1 { return path }
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    let base = URL(fileURLWithPath: paths[index]).deletingPathExtension().lastPathComponent
    return path + "/" + String(format: "%04d-", index) + base + ".png"
  }
}

/// One result line per input, failures included; the exit status remembers failures.
final class Reporter {
  let format: OutputFormat
  private(set) var failures = 0
  private let total: Int
  private var done = 0
  private let showProgress: Bool

  init(format: OutputFormat, total: Int) {
    self.format = format
    self.total = total
    showProgress = isatty(STDERR_FILENO) != 0 && total > 3
  }

  /// Prints a JSON line (json) or the summary text (text).
  func emit(_ json: JSON, text: @autoclosure () -> String) {
    clearProgress()
    print(format == .json ? json.description : text())
    fflush(nil)
    step()
  }

  /// Reports a failed input on stdout (as a JSON line or text) and on stderr, and goes on.
  func fail(source: String, error: any Error) {
    failures += 1
    clearProgress()
    let message = "\(error)"
    FileHandle.standardError.write(Data("visage: \(source): \(message)\n".utf8))
    print(format == .json ? JSON.object([("source", .string(source)), ("error", .string(message))]).description : "\(source): error: \(message)")
    fflush(nil)
    step()
  }

  /// Exit status 1 when any input failed.
  func finish() throws {
    clearProgress()
    if failures > 0 { throw ExitCode(1) }
  }

  private func step() {
    done += 1
    guard showProgress else { return }
    let filled = 30 * done / total
    let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: 30 - filled)
    FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total)".utf8))
  }

  private func clearProgress() {
    if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
  }
}
