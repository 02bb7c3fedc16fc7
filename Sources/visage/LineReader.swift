import ArgumentParser
import Foundation

/// Reads lines one at a time from a file or standard input, however long they are (a
/// record holds a whole image), without reading the file whole.
final class LineReader {
  private let file: UnsafeMutablePointer<FILE>
  private let ownsFile: Bool
  private var buffer: UnsafeMutablePointer<CChar>?
  private var capacity = 0

  /// Standard input for `-`, else the file at `path`.
  init(path: String) throws {
    if path == "-" {
      // A stream of our own on descriptor 0 (the global `stdin` is not concurrency-safe).
      guard let input = fdopen(STDIN_FILENO, "rb") else {
        throw SetupError("cannot read standard input: \(String(cString: strerror(errno)))")
      }
      (file, ownsFile) = (input, false)
    } else {
      guard let opened = fopen(path, "rb") else {
        throw SetupError("cannot read '\(path)': \(String(cString: strerror(errno)))")
      }
      (file, ownsFile) = (opened, true)
    }
    // A folder opens, and then reads as empty (getline fails with EISDIR): say so instead.
    // (The stream is closed by deinit, which runs for a class whose init throws once every
    // property is set.)
    var status = stat()
    if fstat(fileno(file), &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
      throw SetupError(
        path == "-" ? "standard input is a folder, not a file of lines" : "'\(path)' is a folder, not a file of lines")
    }
  }

  deinit {
    free(buffer)
    if ownsFile { fclose(file) }
  }

  /// The next line without its line break, or `nil` at the end.
  func next() -> String? {
    let count = getline(&buffer, &capacity, file)
    guard count >= 0, let buffer else { return nil }
    var end = count
    while end > 0, buffer[end - 1] == 0x0A || buffer[end - 1] == 0x0D { end -= 1 }
    return String(decoding: UnsafeRawBufferPointer(start: buffer, count: end), as: UTF8.self)
  }
}
