import ArgumentParser
import Foundation
import VisageRuntime
import VisageTFLite

/// A tensor dump folder's `manifest.json`: what `visage run --dump-tensors` and
/// `Tools/litert_dump.py` write and `visage compare` reads. docs/validation.md is its
/// contract; other tools read it, so fields are only ever added.
struct DumpManifest {
  /// One tensor: its file in the folder and the operator that wrote it.
  typealias Tensor = TensorDump.Entry

  /// The model as the command line named it.
  var model: String
  /// Who wrote the dump, such as `visage optimized` or `litert reference`.
  var engine: String
  /// Tensors in execution order.
  var tensors: [Tensor]
  /// Where a partial dump stopped: the operator and why.
  var stopped: TensorDump.Stop?

  /// The manifest of `dump`, written by `engine`.
  init(model: String, engine: String, dump: TensorDump) {
    (self.model, self.engine, tensors, stopped) = (model, engine, dump.entries, dump.stop)
  }

  var json: JSON {
    func producer(_ p: TensorDump.Producer?) -> JSON {
      guard let p else { return .null }
      return .object([("index", .int(p.index)), ("type", .string(p.type)), ("inputs", .array(p.inputs.map(JSON.int)))])
    }
    let entries = tensors.map { t in
      JSON.object([
        ("index", .int(t.index)), ("name", .string(t.name)), ("file", .string(t.file)),
        ("shape", .array(t.shape.map(JSON.int))), ("dtype", .string(t.dtype)), ("operator", producer(t.producer)),
      ])
    }
    return .object([
      ("model", .string(model)), ("engine", .string(engine)), ("tensors", .array(entries)), ("stopped", stoppedJSON),
    ])
  }

  /// `stopped` as the manifest and `visage compare`'s report write it.
  var stoppedJSON: JSON {
    stopped.map {
      .object([
        ("operator", .object([("index", .int($0.index)), ("type", .string($0.type))])), ("reason", .string($0.reason)),
      ])
    } ?? .null
  }

  /// `manifest.json` as it is read: what a reader can do without is optional.
  private struct File: Decodable {
    struct Entry: Decodable {
      var index: Int
      var file: String
      var shape: [Int]
      var name: String?
      var dtype: String?
      var `operator`: Operator?
    }
    struct Operator: Decodable {
      var index: Int
      var type: String?
      var inputs: [Int]?
    }
    struct Stop: Decodable {
      var `operator`: Stop.Operator?
      var reason: String?
      struct Operator: Decodable {
        var index: Int?
        var type: String?
      }
    }
    var model: String?
    var engine: String?
    var tensors: [Entry]
    var stopped: Stop?
  }

  /// Reads `directory/manifest.json`.
  ///
  /// - Throws: `ValidationError` (a usage error) when the folder holds no readable manifest
  ///   of this layout, naming the field at fault.
  init(directory: String) throws {
    let path = directory + "/manifest.json"
    guard let data = try? Data(BytePath(path).contents()) else {
      throw ValidationError("\(path) cannot be read; is \(directory) a tensor dump (visage run --dump-tensors)?")
    }
    func fail(_ what: String) -> ValidationError { ValidationError("\(path): \(what)") }
    let file: File
    do { file = try JSONDecoder().decode(File.self, from: data) } catch let error as DecodingError {
      throw fail(Self.describe(error))
    }
    (model, engine) = (file.model ?? "", file.engine ?? "")
    tensors = try file.tensors.enumerated().map { k, entry in
      // A file name, never a path: a manifest must not make compare read outside its folder.
      guard !entry.file.isEmpty, !entry.file.contains("/"), entry.file != "..", entry.file != "." else {
        throw fail("tensors[\(k)].file \"\(entry.file)\" must be a file name in the folder")
      }
      return Tensor(
        index: entry.index, name: entry.name ?? "", shape: entry.shape, dtype: entry.dtype ?? "", file: entry.file,
        producer: entry.operator.map {
          TensorDump.Producer(index: $0.index, type: $0.type ?? "?", inputs: $0.inputs ?? [])
        })
    }
    var seen: [Int: Int] = [:]
    for (k, tensor) in tensors.enumerated() {
      if let first = seen.updateValue(k, forKey: tensor.index) {
        throw fail("tensors[\(first)] and tensors[\(k)] both name tensor \(tensor.index)")
      }
    }
    stopped = file.stopped.map {
      TensorDump.Stop(index: $0.operator?.index ?? -1, type: $0.operator?.type ?? "?", reason: $0.reason ?? "")
    }
  }

  /// A decoding error as the field at fault and what is wrong with it (`tensors[3].shape is
  /// missing`).
  private static func describe(_ error: DecodingError) -> String {
    let (path, what): ([any CodingKey], String) =
      switch error {
      case .keyNotFound(let key, let context): (context.codingPath + [key], "is missing")
      case .typeMismatch(_, let context), .valueNotFound(_, let context): (context.codingPath, "has the wrong type")
      case .dataCorrupted(let context): (context.codingPath, "is not valid JSON")
      @unknown default: ([], "cannot be read")
      }
    let field = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }
    return (field.isEmpty ? "the manifest" : String(field)) + " " + what
  }
}
