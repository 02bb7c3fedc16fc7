import Foundation
import Visage

/// Images handed over as JSON Lines, one record per line, so that a batch engine (Spark's
/// `RDD.pipe`, Ray, Dask, Beam) can stream image bytes through standard input without
/// temporary files. Each record is `{"source": "name", "data": "<base64 of a PNG or JPEG file>"}`;
/// `source` is optional and names the record's result line.
///
/// The parsing lives in the library rather than in the `visage` executable so that it can be
/// tested and fuzzed (`Fuzz/`) like the other decoders.
public enum ImageRecords {
  /// What a record that cannot be used says.
  public struct RecordError: Error, CustomStringConvertible {
    /// The sentence reported for the record.
    public let description: String
  }

  /// The record on `line`: the name its result goes under (`defaultSource` when the record
  /// has none), and its decoded image or the reason there is none. Never throws: a bad record
  /// is one failed input, and the stream goes on. Images are decoded within `limits`, with
  /// `orientation` as `DecodedImage(encoded:orientation:limits:)` takes it (`nil`: the
  /// file's Exif orientation).
  public static func parse(
    _ line: String, defaultSource: String, orientation: MPImage.Orientation? = nil, limits: ImageLimits = .default,
    decoder: ImageDecoder = .standard
  ) -> (source: String, image: Result<DecodedImage, any Error>) {
    guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
      return (
        defaultSource,
        .failure(RecordError(description: "not a JSON object: expected {\"source\": ..., \"data\": <base64>}"))
      )
    }
    let source: String
    switch object["source"] {
    case nil, is NSNull: source = defaultSource
    case let name as String: source = name
    default: return (defaultSource, .failure(RecordError(description: "\"source\" must be a string")))
    }
    guard let text = object["data"] as? String else {
      return (source, .failure(RecordError(description: "no \"data\" string (the image file's bytes in base64)")))
    }
    let bytes: [UInt8]
    do { bytes = try StrictBase64.decode(text, field: "\"data\"") } catch {
      return (source, .failure(RecordError(description: error.description)))
    }
    return (
      source,
      Result {
        try DecodedImage(encoded: [UInt8](bytes), orientation: orientation, limits: limits, decoder: decoder)
      }
    )
  }
}
