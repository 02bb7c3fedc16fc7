import VisageRuntime

/// Why a model file or bundle could not be read.
public enum TFLiteError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The bytes do not follow the format; `path` says where, such as
  /// `subgraphs[0].operators[17].inputs[1]`.
  case malformed(path: String, reason: String)
  /// The model uses an operator this runtime does not implement.
  case unsupportedOperator(name: String, location: String)
  /// The model uses a feature this runtime does not implement (a tensor type, sparsity…).
  case unsupported(path: String, reason: String)
  /// A `.task` bundle is not a readable zip archive.
  case invalidBundle(String)
  /// A `.task` bundle has no entry of that name; a name ending in `:` (`x.task:`) is a bare
  /// bundle path given where one model is read, which names no entry.
  case missingEntry(name: String, available: [String])
  /// A file could not be read.
  case unreadableFile(path: String)
  /// A file is larger than `limit` bytes (`ModelSource.maximumFileBytes` unless raised);
  /// refused from its size alone, before it is read.
  case fileTooLarge(path: String, bytes: Int, limit: Int)
  /// The model reads correctly but does not form a valid graph.
  case invalidGraph(RuntimeError)

  /// A one-line explanation.
  public var description: String {
    switch self {
    case .malformed(let path, let reason): "malformed model at \(path): \(reason)"
    case .unsupportedOperator(let name, let location):
      "unsupported operator \(name) at \(location)"
    case .unsupported(let path, let reason): "unsupported model feature at \(path): \(reason)"
    case .invalidBundle(let reason): "invalid .task bundle: \(reason)"
    case .missingEntry(let name, let available) where name.hasSuffix(":"):
      "'\(name.dropLast())' is a .task bundle of several models: name one as \(name)ENTRY, "
        + "one of \(available.joined(separator: ", "))"
    case .missingEntry(let name, let available):
      "the bundle has no entry '\(name)' (it has: \(available.joined(separator: ", ")))"
    case .unreadableFile(let path): "cannot read file '\(path)'"
    case .fileTooLarge(let path, let bytes, let limit):
      "file '\(path)' is \(bytes) bytes, more than the limit of \(limit) bytes (ModelSource.maximumFileBytes)"
    case .invalidGraph(let error): "\(error)"
    }
  }
}

extension TFLiteError {
  /// Whether the model is well formed but uses something the runtime does not implement.
  var isUnsupported: Bool {
    switch self {
    case .unsupported, .unsupportedOperator: true
    default: false
    }
  }
}
