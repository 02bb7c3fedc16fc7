import Foundation
import VisageRuntime
import VisageTFLite
import VisageTestSupport

/// The LiteRT reference outputs under `Tests/Fixtures/runtime/`, written by a script in
/// Tools/ (another helper's):
///
///     runtime/manifest.json
///     runtime/<model>/<input>.input.npy        the model's input (or .input0.npy, .input1.npy…)
///     runtime/<model>/<input>.out<k>.npy       LiteRT's output k
///     runtime/<model>/<input>.layers.json      per-operator output fingerprints
///
/// Cases are found by listing the folders, so the tests do not depend on the manifest's
/// exact shape; `<input>` is `face` or `random`. Set `VISAGE_RUNTIME_FIXTURES` to a folder
/// of the same layout to try freshly generated fixtures before committing them.
enum RuntimeFixtures {
  static var directory: String {
    ProcessInfo.processInfo.environment["VISAGE_RUNTIME_FIXTURES"] ?? Fixtures.fixturePath("runtime")
  }

  /// Whether the fixtures have been generated.
  static var available: Bool { Fixtures.exists(directory + "/manifest.json") }

  /// One model run on one stored input.
  struct Case: Sendable, CustomStringConvertible {
    var model: BundledModel
    var input: String
    var folder: String

    var description: String { "\(model)/\(input)" }

    /// The stored inputs, in the model's input order.
    func inputs() throws -> [Tensor] {
      let single = "\(folder)/\(input).input.npy"
      if Fixtures.exists(single) { return [try tensor(single)] }
      var tensors: [Tensor] = []
      while Fixtures.exists("\(folder)/\(input).input\(tensors.count).npy") {
        tensors.append(try tensor("\(folder)/\(input).input\(tensors.count).npy"))
      }
      guard !tensors.isEmpty else { throw FixtureError.unreadable(single) }
      return tensors
    }

    /// LiteRT's outputs, in the model's output order.
    func outputs() throws -> [Tensor] {
      var tensors: [Tensor] = []
      while Fixtures.exists("\(folder)/\(input).out\(tensors.count).npy") {
        tensors.append(try tensor("\(folder)/\(input).out\(tensors.count).npy"))
      }
      return tensors
    }

    var layersPath: String { "\(folder)/\(input).layers.json" }

    private func tensor(_ path: String) throws -> Tensor {
      try Tensor(npy: Fixtures.bytes(atPath: path))
    }
  }

  /// Every (model, input) pair with a stored input, models in benchmark order.
  static let cases: [Case] = {
    guard available else { return [] }
    var result: [Case] = []
    for model in BundledModel.allCases {
      let folder = directory + "/" + model.name
      guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
      var inputs = Set<String>()
      for file in files {
        if let range = file.range(of: ".input.npy") ?? file.range(of: ".input0.npy"), range.upperBound == file.endIndex
        {
          inputs.insert(String(file[..<range.lowerBound]))
        }
      }
      for input in inputs.sorted() { result.append(Case(model: model, input: input, folder: folder)) }
    }
    return result
  }()

  /// The cases that have a layers.json.
  static var fingerprintCases: [Case] { cases.filter { Fixtures.exists($0.layersPath) } }
}

/// Summary statistics of one operator's output, as the fixture script records them and as
/// we compute them from our tensors.
struct Fingerprint {
  var op: String
  var tensor: Int
  var name: String
  var shape: [Int]?
  var count: Int
  var mean: Double
  var rms: Double
  var min: Double
  var max: Double
  /// (flat index, value) pairs.
  var samples: [(index: Int, value: Double)]

  /// Reads a layers.json: an array of fingerprints, or an object holding one under
  /// `layers`, `ops` or `nodes`.
  static func load(_ path: String) throws -> [Fingerprint] {
    let json = try JSONSerialization.jsonObject(with: Data(Fixtures.bytes(atPath: path)))
    let list: [Any]
    if let array = json as? [Any] {
      list = array
    } else if let object = json as? [String: Any],
      let array = (object["layers"] ?? object["ops"] ?? object["nodes"]) as? [Any]
    {
      list = array
    } else {
      throw FixtureError.malformed("\(path): expected an array of fingerprints")
    }
    return try list.enumerated().map { k, item in
      guard let entry = item as? [String: Any] else { throw FixtureError.malformed("\(path)[\(k)] is not an object") }
      return try Fingerprint(entry, where: "\(path)[\(k)]")
    }
  }

  init(_ entry: [String: Any], where place: String) throws {
    func number(_ key: String) throws -> Double {
      if let n = entry[key] as? NSNumber { return n.doubleValue }
      if let s = entry[key] as? String, let d = Double(s) { return d }  // "nan", "inf"
      if entry[key] is NSNull { return .nan }
      throw FixtureError.malformed("\(place).\(key) is missing or not a number")
    }
    guard let tensor = (entry["tensor"] as? NSNumber)?.intValue else {
      throw FixtureError.malformed("\(place).tensor is missing")
    }
    self.tensor = tensor
    if let name = entry["op"] as? String {
      op = name
    } else if let index = (entry["op"] as? NSNumber)?.intValue {
      op = "operator \(index)"
    } else {
      op = "?"
    }
    name = entry["name"] as? String ?? ""
    shape = (entry["shape"] as? [NSNumber])?.map(\.intValue)
    count = Int(try number("count"))
    mean = try number("mean")
    rms = try number("rms")
    min = try number("min")
    max = try number("max")
    samples = Self.samples(entry, count: count)
  }

  /// Samples as (index, value): pairs, objects with index and value, or bare values whose
  /// indices are given separately (`sample_indices`) or default to what
  /// Tools/make_runtime_fixtures.py uses: Python's `round(i * (n - 1) / (k - 1))` for k
  /// samples (rounding half to even).
  static func samples(_ entry: [String: Any], count: Int) -> [(index: Int, value: Double)] {
    guard let raw = entry["samples"] as? [Any] else { return [] }
    var pairs: [(Int, Double)] = []
    var bare: [Double] = []
    for item in raw {
      if let pair = item as? [NSNumber], pair.count == 2 {
        pairs.append((pair[0].intValue, pair[1].doubleValue))
      } else if let object = item as? [String: Any], let i = (object["index"] as? NSNumber)?.intValue,
        let v = (object["value"] as? NSNumber)?.doubleValue
      {
        pairs.append((i, v))
      } else if let v = item as? NSNumber {
        bare.append(v.doubleValue)
      } else {
        bare.append(.nan)
      }
    }
    if !pairs.isEmpty { return pairs.map { (index: $0.0, value: $0.1) } }
    let given = (entry["sample_indices"] ?? entry["sampleIndices"] ?? entry["indices"]) as? [NSNumber]
    let indices =
      given?.map(\.intValue)
      ?? (0..<bare.count).map { k in
        bare.count == 1 ? 0 : Int((Double(k) * Double(count - 1) / Double(bare.count - 1)).rounded(.toNearestOrEven))
      }
    return zip(indices, bare).map { (index: $0, value: $1) }
  }

  /// Our fingerprint of `values`, sampled at the reference's indices.
  init(of values: [Float], like reference: Fingerprint) {
    op = reference.op
    tensor = reference.tensor
    name = reference.name
    shape = nil
    count = values.count
    var sum = 0.0
    var squares = 0.0
    var low = Double.infinity
    var high = -Double.infinity
    for v in values {
      let d = Double(v)
      sum += d
      squares += d * d
      low = Swift.min(low, d)
      high = Swift.max(high, d)
    }
    let n = Double(Swift.max(values.count, 1))
    mean = sum / n
    rms = (squares / n).squareRoot()
    min = low
    max = high
    samples = reference.samples.map { s in
      (s.index, s.index >= 0 && s.index < values.count ? Double(values[s.index]) : .nan)
    }
  }

  /// The statistics of `self` (ours) that differ from `reference` by more than `bound` of
  /// the reference's scale, described; empty when they agree.
  func differences(from reference: Fingerprint, bound: Double) -> [String] {
    if count != reference.count { return ["count \(count) vs \(reference.count)"] }
    let scale = Swift.max(1, abs(reference.min), abs(reference.max))
    func far(_ a: Double, _ b: Double) -> Bool {
      if a.isNaN || b.isNaN { return !(a.isNaN && b.isNaN) }
      if a.isInfinite || b.isInfinite { return a != b }
      return abs(a - b) > bound * scale
    }
    var result: [String] = []
    for (label, a, b) in [
      ("mean", mean, reference.mean), ("rms", rms, reference.rms), ("min", min, reference.min),
      ("max", max, reference.max),
    ]
    where far(a, b) {
      result.append("\(label) \(a) vs \(b)")
    }
    for (ours, theirs) in zip(samples, reference.samples) where far(ours.value, theirs.value) {
      result.append("sample[\(theirs.index)] \(ours.value) vs \(theirs.value)")
    }
    return result
  }
}
