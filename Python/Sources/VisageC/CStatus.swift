import Foundation
import Visage
import VisageImageIO

/// What a call into the C ABI returns: 0 for success, else the kind of failure, which the
/// Python side turns into the matching exception (`visage/_native.py`).
enum CStatus: Int32 {
  case ok = 0
  /// A bad argument or a call the task's state refuses: Python's `ValueError`.
  case invalidArgument = 1
  /// The engine failed: Python's `RuntimeError`.
  case engine = 2
  /// A model or image file that does not exist: Python's `FileNotFoundError`.
  case fileNotFound = 3

  /// The status for an error thrown by the engine.
  init(_ error: Error) {
    switch error {
    case is MissingFile: self = .fileNotFound
    case VisionTaskError.invalidModel: self = .engine
    case is VisionTaskError, is MPImageError, is ImageIOError, is DecodingError, is CallError:
      self = .invalidArgument
    default: self = .engine
    }
  }
}

/// A caller's mistake found by this layer (a bad handle, field or buffer) rather than by the
/// engine.
struct CallError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// A model or image path that names no file, found before the engine reads it so that Python
/// can raise `FileNotFoundError`, as MediaPipe does.
struct MissingFile: Error, CustomStringConvertible {
  let path: String
  var description: String { "Unable to open file at \(path)" }

  /// Throws unless `path` names an existing file (or, with `folderIsMissing` false, folder:
  /// MediaPipe's image reading raises RuntimeError for a folder, not FileNotFoundError).
  static func check(_ path: String, folderIsMissing: Bool = true) throws(MissingFile) {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !(folderIsMissing && isFolder.boolValue)
    else {
      throw MissingFile(path: path)
    }
  }
}

/// Runs `body`; on failure stores a copy of the error's text in `*message` (freed by the caller
/// with `visage_free`) and returns its status.
func guarded(_ message: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ body: () throws -> Void) -> Int32 {
  do {
    try body()
    return CStatus.ok.rawValue
  } catch {
    message?.pointee = strdup(describe(error))
    return CStatus(error).rawValue
  }
}

/// An error's text; for an option JSON could not give, the option's name and what was wrong.
private func describe(_ error: Error) -> String {
  guard let error = error as? DecodingError else { return String(describing: error) }
  switch error {
  case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
    let name = context.codingPath.last?.stringValue ?? "options"
    return "invalid option '\(name)': \(context.debugDescription)"
  case .keyNotFound(let key, _): return "missing option '\(key.stringValue)'"
  @unknown default: return String(describing: error)
  }
}
