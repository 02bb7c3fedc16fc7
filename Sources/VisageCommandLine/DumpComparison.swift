import Foundation
import VisageRuntime
import VisageTFLite

/// Two tensor dumps of one model compared tensor by tensor in A's execution order, B being
/// the reference: what `visage compare` and `visage run --against` report.
struct DumpComparison {
  /// The bound every value must meet: `|a - b| <= atol + rtol·|b|` (NumPy's `isclose`).
  struct Tolerance {
    var atol: Double
    var rtol: Double
  }

  /// One tensor found in both dumps.
  struct Result {
    enum Status: String {
      /// Every value within tolerance.
      case ok
      /// Some value out of tolerance.
      case outOfTolerance
      /// The shapes differ; nothing else is compared.
      case shapeMismatch
      /// A NaN or infinity on one side where the other has something else.
      case nonFinite
      /// A file is missing or is not a readable `.npy`.
      case unreadable
    }

    var index: Int
    var name: String
    var shape: [Int]
    var producer: TensorDump.Producer?
    var status: Status = .ok
    /// What went wrong when no values could be compared.
    var problem: String?
    /// B's name for the tensor, when it differs from A's.
    var otherName: String?
    var stats = Statistics()

    /// Takes `stats` and the status they give.
    mutating func judge(_ stats: Statistics) {
      self.stats = stats
      if stats.nonFiniteMismatches > 0 {
        status = .nonFinite
      } else if stats.mismatches > 0 {
        status = .outOfTolerance
      }
    }
  }

  /// Errors over the values both sides hold as finite numbers.
  struct Statistics {
    var maxAbsError = 0.0
    /// Largest `|a - b| / |b|` where `b` is not zero.
    var maxRelError = 0.0
    /// Signal-to-noise ratio `10·log10(Σb² / Σ(a - b)²)`, +infinity when equal.
    var snrDb = Double.infinity
    /// Values out of tolerance.
    var mismatches = 0
    /// NaNs and infinities in A and in B, and the places where only one side has one or
    /// they differ (the same NaN or infinity on both sides is a match).
    var nonFiniteA = 0
    var nonFiniteB = 0
    var nonFiniteMismatches = 0

    init() {}

    init(_ a: [Double], _ b: [Double], _ tolerance: Tolerance) {
      var errorSquares = 0.0
      var signalSquares = 0.0
      for (x, y) in zip(a, b) {
        guard x.isFinite, y.isFinite else {
          if !x.isFinite { nonFiniteA += 1 }
          if !y.isFinite { nonFiniteB += 1 }
          if !(x.isNaN && y.isNaN) && x != y { nonFiniteMismatches += 1 }
          continue
        }
        let d = abs(x - y)
        maxAbsError = max(maxAbsError, d)
        if y != 0 { maxRelError = max(maxRelError, d / abs(y)) }
        if d > tolerance.atol + tolerance.rtol * abs(y) { mismatches += 1 }
        errorSquares += d * d
        signalSquares += y * y
      }
      if errorSquares > 0 { snrDb = 10 * log10(signalSquares / errorSquares) }
    }
  }

  let a: DumpManifest
  let b: DumpManifest
  let directories: (a: String, b: String)
  let tolerance: Tolerance
  /// The tensors in both dumps, in A's order.
  private(set) var results: [Result] = []
  /// Tensor indices in one dump only.
  private(set) var onlyInA: [Int] = []
  private(set) var onlyInB: [Int] = []
  /// `run --against`: the model's outputs from the fused graph inference runs, against B.
  private(set) var fusedOutputs: [Result] = []
  /// B's tensors by index.
  private let inB: [Int: DumpManifest.Tensor]

  /// Reads both manifests and compares every tensor they share, one at a time.
  ///
  /// - Throws: `ValidationError` when a folder holds no readable manifest.
  init(_ directoryA: String, _ directoryB: String, tolerance: Tolerance) throws {
    a = try DumpManifest(directory: directoryA)
    b = try DumpManifest(directory: directoryB)
    directories = (directoryA, directoryB)
    self.tolerance = tolerance
    inB = Dictionary(b.tensors.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
    let inA = Set(a.tensors.map(\.index))
    onlyInB = b.tensors.map(\.index).filter { !inA.contains($0) }
    for tensor in a.tensors {
      guard let other = inB[tensor.index] else {
        onlyInA.append(tensor.index)
        continue
      }
      results.append(compare(tensor, other))
    }
  }

  private func compare(_ x: DumpManifest.Tensor, _ y: DumpManifest.Tensor) -> Result {
    var result = Result(index: x.index, name: x.name, shape: x.shape, producer: x.producer ?? y.producer)
    if y.name != x.name { result.otherName = y.name }
    guard x.shape == y.shape else {
      result.status = .shapeMismatch
      result.problem = "shape \(x.shape) in A, \(y.shape) in B"
      return result
    }
    guard let valuesA = load(x, from: directories.a, side: "A", into: &result),
      let valuesB = load(y, from: directories.b, side: "B", into: &result)
    else { return result }
    result.judge(Statistics(valuesA, valuesB, tolerance))
    return result
  }

  /// A tensor's values from its file in `directory`; nil, with `result` marked unreadable and
  /// the problem said, when the file is missing, not a `.npy`, or of another shape than the
  /// manifest says.
  private func load(
    _ tensor: DumpManifest.Tensor, from directory: String, side: String, into result: inout Result
  ) -> [Double]? {
    let path = directory + "/" + tensor.file
    do {
      let array = try NPYArray(npy: BytePath(path).contents())
      guard array.shape == tensor.shape else {
        result.status = .unreadable
        result.problem =
          "\(side): \(BytePath(path).description) has shape \(array.shape), its manifest says \(tensor.shape)"
        return nil
      }
      return array.values
    } catch {
      result.status = .unreadable
      result.problem =
        "\(side): \(BytePath(path).description): \(error is RuntimeError ? "\(error)" : "cannot be read")"
      return nil
    }
  }

  /// Compares the fused graph's outputs (what inference computes; a dump runs unfused) with
  /// B's values of the same tensors; an output B lacks is not vouched for, so it fails.
  mutating func compareFused(outputs: [(index: Int, tensor: Tensor)]) {
    for (index, tensor) in outputs {
      var result = Result(
        index: index, name: inB[index]?.name ?? "", shape: tensor.shape.dimensions, producer: inB[index]?.producer)
      if let reference = inB[index] {
        if reference.shape != tensor.shape.dimensions {
          result.status = .unreadable
          result.problem = "shape \(tensor.shape.dimensions) from the fused graph, \(reference.shape) in B"
        } else if let values = load(reference, from: directories.b, side: "B", into: &result) {
          result.judge(Statistics(tensor.values.map(Double.init), values, tolerance))
        }
      } else {
        result.status = .unreadable
        result.problem = "B has no tensor \(index), a model output"
      }
      fusedOutputs.append(result)
    }
  }

  /// How many shared tensors fail.
  var failed: Int { results.count { $0.status != .ok } }

  /// How many of the fused graph's outputs fail (`run --against`).
  var fusedFailed: Int { fusedOutputs.count { $0.status != .ok } }

  /// Whether the comparison fails: a shared tensor or fused output out of tolerance, a dump
  /// that stopped early, or no tensor in both dumps at all (the wrong model, or an empty
  /// dump, must not pass).
  var fails: Bool { failed > 0 || fusedFailed > 0 || a.stopped != nil || b.stopped != nil || results.isEmpty }

  /// The first failing tensor in execution order.
  var firstDivergence: Result? { results.first { $0.status != .ok } }

  /// The results for the tensors `producer` reads, nil where a tensor is not in both dumps.
  func inputs(of producer: TensorDump.Producer) -> [(index: Int, result: Result?)] {
    let byIndex = Dictionary(results.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
    return producer.inputs.map { ($0, byIndex[$0]) }
  }
}
