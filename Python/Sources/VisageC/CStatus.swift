import CVisage
import Foundation
import Visage
import VisageImageIO

extension visage_status {
  /// The status for an error thrown by the engine (visage.h says which Python exception each
  /// becomes).
  init(_ error: Error) {
    switch error {
    case is MissingFile: self = VISAGE_FILE_NOT_FOUND
    case VisionTaskError.invalidModel: self = VISAGE_ENGINE_FAILED
    case is VisionTaskError, is MPImageError, is ImageIOError, is DecodingError, is CallError:
      self = VISAGE_INVALID_ARGUMENT
    default: self = VISAGE_ENGINE_FAILED
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
func guarded(_ message: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ body: () throws -> Void) -> visage_status
{
  do {
    try body()
    return VISAGE_OK
  } catch {
    message?.pointee = strdup(describe(error))
    return visage_status(error)
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
