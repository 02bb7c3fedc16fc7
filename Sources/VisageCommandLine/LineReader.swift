import ArgumentParser
import Foundation
import VisageTFLite

/// Reads lines one at a time from a file or standard input, without reading the file whole,
/// keeping at most `maximumLength` bytes of a line: a longer one is skipped to its end (its
/// length counted) rather than held, so that one huge line costs neither the memory nor the
/// time to build and echo it.
final class LineReader {
  /// One line without its line break, or the start of one longer than the maximum.
  struct Line {
    /// The line's bytes; its first 64 when it is too long.
    let bytes: [UInt8]
    /// The length in bytes of a line longer than the maximum; `nil` for the others.
    let tooLong: Int?
  }

  private let descriptor: Int32
  private let maximumLength: Int
  private var chunk = [UInt8](repeating: 0, count: 1 << 16)
  private var (start, end) = (0, 0)
  private var atEnd = false
  /// Lines read ahead and given back (`unread`), returned before any more are read.
  private var pending: [Line] = []

  /// Standard input for `-`, else the file at `path` (a `BytePath` string form); lines of at
  /// most `maximumLength` bytes.
  init(path: String, maximumLength: Int) throws {
    self.maximumLength = maximumLength
    descriptor = path == "-" ? STDIN_FILENO : BytePath(path).open(O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw SetupError("cannot read '\(path)': \(String(cString: strerror(errno)))") }
    // A folder opens, and then reads as empty (read fails with EISDIR): say so instead.
    // (The descriptor is closed by deinit, which runs for a class whose init throws once every
    // property is set.)
    var status = stat()
    if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
      throw SetupError(
        path == "-" ? "standard input is a folder, not a file of lines" : "'\(path)' is a folder, not a file of lines")
    }
  }

  deinit { if descriptor != STDIN_FILENO { close(descriptor) } }

  /// The next line, or `nil` at the end (a read error ends the lines as the end does).
  func next() -> Line? {
    if !pending.isEmpty { return pending.removeFirst() }
    var line: [UInt8] = []
    var length = 0
    while true {
      if start == end {
        guard !atEnd else { return length == 0 ? nil : finished(line, length) }
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        (start, end, atEnd) = (0, max(count, 0), count <= 0)
        continue
      }
      let stop = chunk[start..<end].firstIndex(of: 0x0A)
      let piece = chunk[start..<(stop ?? end)]
      if length + piece.count <= maximumLength {
        line += piece
      } else if line.count < 64 {
        line += piece.prefix(64 - line.count)
      }
      length += piece.count
      start = stop.map { $0 + 1 } ?? end
      if stop != nil { return finished(line, length) }
    }
  }

  /// Gives back `lines`, read ahead, to be returned again first, in their order.
  func unread(_ lines: [Line]) { pending = lines + pending }

  /// `line` without a Windows line end, and whether it was too long.
  private func finished(_ line: [UInt8], _ length: Int) -> Line {
    guard length <= maximumLength else { return Line(bytes: Array(line.prefix(64)), tooLong: length) }
    return Line(bytes: line.last == 0x0D ? line.dropLast() : line, tooLong: nil)
  }
}
