import Foundation

/// Reads models from files: a `.tflite`, or one entry of a `.task` bundle written
/// `bundle.task:entry.tflite`.
public enum ModelSource {
  /// The default largest file `bytes(ofFile:)` reads: 1 GiB. The bundled models are a few
  /// megabytes, the largest TFLite face models tens; a model (or `.npy` input) past this is
  /// far more likely a wrong path than a model, and reading it whole would take its size
  /// in memory twice over.
  public static let maximumFileBytes = 1 << 30

  /// The bytes of a whole regular file of at most `limit` bytes, `path` read as a `BytePath`.
  ///
  /// - Throws: `TFLiteError.fileTooLarge` for a larger file, from its size before reading it;
  ///   `.unreadableFile` if it cannot be read or is not a regular file (a FIFO, say).
  public static func bytes(ofFile path: String, limit: Int = maximumFileBytes) throws(TFLiteError) -> [UInt8] {
    do { return try BytePath(path).contents(limit: limit) } catch {
      guard case .tooLarge(let bytes) = error else { throw .unreadableFile(path: path) }
      throw .fileTooLarge(path: path, bytes: bytes, limit: limit)
    }
  }

  /// Loads the model that `reference` names: `model.tflite`, or `bundle.task:entry.tflite`.
  ///
  /// A bare `.task` path is an error that lists the bundle's entries.
  public static func model(at reference: String) throws(TFLiteError) -> TFLiteModel {
    let bytes = try modelBytes(at: reference)
    // The parser knows only where in the bytes it failed; say which file too.
    do { return try TFLiteModel(bytes: bytes) } catch {
      switch error {
      case .malformed(let path, let reason): throw .malformed(path: Self.place(path, in: reference), reason: reason)
      case .unsupported(let path, let reason): throw .unsupported(path: Self.place(path, in: reference), reason: reason)
      default: throw error
      }
    }
  }

  /// `'model.tflite'`, or `'model.tflite' subgraphs[0]...` for a place inside it.
  private static func place(_ path: String, in reference: String) -> String {
    path == "file" ? "'\(reference)'" : "'\(reference)' \(path)"
  }

  /// The `.tflite` bytes that `reference` names, as `model(at:)` reads them.
  public static func modelBytes(at reference: String) throws(TFLiteError) -> [UInt8] {
    if let colon = reference.lastIndex(of: ":"), reference[..<colon].hasSuffix(".task") {
      let bundle = try TaskBundle(bytes: bytes(ofFile: String(reference[..<colon])))
      return try bundle.data(named: String(reference[reference.index(after: colon)...]))
    }
    let data = try bytes(ofFile: reference)
    if reference.hasSuffix(".task") {
      let bundle = try TaskBundle(bytes: data)
      throw .missingEntry(name: reference + ":", available: bundle.entryNames)
    }
    return data
  }
}
