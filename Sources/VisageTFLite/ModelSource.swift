import Foundation

/// Reads models from files: a `.tflite`, or one entry of a `.task` bundle written
/// `bundle.task:entry.tflite`.
public enum ModelSource {
  /// The bytes of a whole file.
  public static func bytes(ofFile path: String) throws(TFLiteError) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else { throw .unreadableFile(path: path) }
    return [UInt8](data)
  }

  /// Loads the model that `reference` names: `model.tflite`, or `bundle.task:entry.tflite`.
  ///
  /// A bare `.task` path is an error that lists the bundle's entries.
  public static func model(at reference: String) throws(TFLiteError) -> TFLiteModel {
    if let colon = reference.lastIndex(of: ":"), reference[..<colon].hasSuffix(".task") {
      let bundle = try TaskBundle(bytes: bytes(ofFile: String(reference[..<colon])))
      return try TFLiteModel(bytes: bundle.data(named: String(reference[reference.index(after: colon)...])))
    }
    let data = try bytes(ofFile: reference)
    if reference.hasSuffix(".task") {
      let bundle = try TaskBundle(bytes: data)
      throw .missingEntry(name: "(none given; write \(reference):ENTRY)", available: bundle.entryNames)
    }
    return try TFLiteModel(bytes: data)
  }
}
