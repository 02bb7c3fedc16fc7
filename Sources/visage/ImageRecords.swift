import ArgumentParser
import Foundation
import Visage
import VisageImageIO

/// `--input-format`: how the inputs are given.
enum InputFormat: String, ExpressibleByArgument, CaseIterable {
  /// Image paths (arguments or `--paths-from`), or one YUV4MPEG2 stream.
  case files
  /// JSON Lines of encoded images, `{"source": "name", "data": "<base64 PNG or JPEG>"}`, from
  /// the one argument (a file, or `-` for standard input).
  case jsonl
}

/// Images handed over as JSON Lines, one record per line, so that a batch engine (Spark's
/// `RDD.pipe`, Ray, Dask, Beam) can stream image bytes through standard input without
/// temporary files. Each record is `{"source": "name", "data": "<base64 of a PNG or JPEG file>"}`;
/// `source` is optional and names the record's result line (default `<input>#<line index>`).
enum ImageRecords {
  /// What a record that cannot be used says.
  struct RecordError: Error, CustomStringConvertible {
    let description: String
  }

  /// The record on `line`: the name its result goes under, and its image or the reason
  /// there is none. Never throws: a bad record is one failed input, and the stream goes on.
  static func parse(_ line: String, defaultSource: String) -> (source: String, image: Result<VisionImage, any Error>) {
    guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
      return (defaultSource, .failure(RecordError(description: "not a JSON object: expected {\"source\": ..., \"data\": <base64>}")))
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
    guard let bytes = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
      return (source, .failure(RecordError(description: "\"data\" is not valid base64")))
    }
    return (source, Result { try VisionImage(encoded: [UInt8](bytes)) })
  }
}

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
        throw ValidationError("cannot read standard input: \(String(cString: strerror(errno)))")
      }
      (file, ownsFile) = (input, false)
    } else {
      guard let opened = fopen(path, "rb") else {
        throw ValidationError("cannot read '\(path)': \(String(cString: strerror(errno)))")
      }
      (file, ownsFile) = (opened, true)
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
