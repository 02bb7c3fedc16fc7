import ArgumentParser
import Foundation
import VisageRuntime
import VisageTFLite

/// A tensor dump folder's `manifest.json`: what `visage run --dump-tensors` and
/// `Tools/litert_dump.py` write and `visage compare` reads. docs/validation.md is its
/// contract; other tools read it, so fields are only ever added.
struct DumpManifest {
  /// One tensor: its file in the folder and the operator that wrote it.
  struct Tensor {
    var index: Int
    var name: String
    var file: String
    var shape: [Int]
    var dtype: String
    /// The writing operator's index, type and inputs; nil for inputs and constants.
    var producer: TensorDump.Producer?
  }

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
    self.model = model
    self.engine = engine
    tensors = dump.entries.map {
      Tensor(index: $0.index, name: $0.name, file: $0.file, shape: $0.shape, dtype: $0.dtype, producer: $0.producer)
    }
    stopped = dump.stop
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

  /// Reads `directory/manifest.json`.
  ///
  /// - Throws: `ValidationError` (a usage error) when the folder holds no readable manifest
  ///   of this layout, naming the field at fault.
  init(directory: String) throws {
    let path = directory + "/manifest.json"
    guard let data = FileManager.default.contents(atPath: path) else {
      throw ValidationError("\(path) cannot be read; is \(directory) a tensor dump (visage run --dump-tensors)?")
    }
    guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      throw ValidationError("\(path) is not a JSON object")
    }
    func fail(_ what: String) -> ValidationError { ValidationError("\(path): \(what)") }
    func int(_ value: Any?) -> Int? {
      guard let n = value as? NSNumber, n.doubleValue == n.doubleValue.rounded(), abs(n.doubleValue) < 0x1p53 else {
        return nil
      }
      return n.intValue
    }
    func ints(_ value: Any?) -> [Int]? {
      guard let list = value as? [Any] else { return nil }
      let items = list.compactMap(int)
      return items.count == list.count ? items : nil
    }
    guard let list = root["tensors"] as? [Any] else { throw fail("no \"tensors\" array") }
    model = root["model"] as? String ?? ""
    engine = root["engine"] as? String ?? ""
    tensors = try list.enumerated().map { k, item in
      guard let entry = item as? [String: Any], let index = int(entry["index"]), let file = entry["file"] as? String,
        let shape = ints(entry["shape"])
      else { throw fail("tensors[\(k)] needs \"index\", \"file\" and \"shape\"") }
      // A file name, never a path: a manifest must not make compare read outside its folder.
      guard !file.isEmpty, !file.contains("/"), file != "..", file != "." else {
        throw fail("tensors[\(k)].file \"\(file)\" must be a file name in the folder")
      }
      var producer: TensorDump.Producer?
      if let op = entry["operator"] as? [String: Any] {
        guard let opIndex = int(op["index"]) else { throw fail("tensors[\(k)].operator needs an \"index\"") }
        producer = TensorDump.Producer(
          index: opIndex, type: op["type"] as? String ?? "?", inputs: ints(op["inputs"]) ?? [])
      }
      return Tensor(
        index: index, name: entry["name"] as? String ?? "", file: file, shape: shape,
        dtype: entry["dtype"] as? String ?? "", producer: producer)
    }
    var seen: [Int: Int] = [:]
    for (k, tensor) in tensors.enumerated() {
      if let first = seen.updateValue(k, forKey: tensor.index) {
        throw fail("tensors[\(first)] and tensors[\(k)] both name tensor \(tensor.index)")
      }
    }
    if let stop = root["stopped"] as? [String: Any] {
      let op = stop["operator"] as? [String: Any]
      stopped = TensorDump.Stop(
        index: int(op?["index"]) ?? -1, type: op?["type"] as? String ?? "?", reason: stop["reason"] as? String ?? "")
    }
  }
}
