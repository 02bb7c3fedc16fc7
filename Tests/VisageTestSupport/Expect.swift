import Testing
import VisageKernels

/// A named bound on `maxScaledError`: how far two float arrays may drift apart.
///
/// Errors are measured relative to the reference's largest magnitude (at least 1), so one
/// tolerance serves both tiny and large outputs.
public struct Tolerance: Sendable, CustomStringConvertible {
  /// The largest allowed `maxScaledError`.
  public var bound: Float
  /// What the bound stands for, printed in failures.
  public var name: String

  /// Creates a tolerance of `bound`.
  public init(_ bound: Float, name: String? = nil) {
    self.bound = bound
    self.name = name ?? "\(bound)"
  }

  /// Bit-for-bit agreement (NaNs agree with NaNs).
  public static let exact = Tolerance(0, name: "exact")

  /// Two implementations of a whole model, or ours against TFLite: 1e-5 scaled.
  public static let model = Tolerance(1e-5, name: "model 1e-5")

  /// Kernels that sum `length` products in a different order: `unit`·√length, the
  /// random-walk growth of rounding error.
  public static func reordered(_ length: Int, unit: Float = 1e-6) -> Tolerance {
    let bound = unit * Float(max(length, 1)).squareRoot()
    return Tolerance(bound, name: "reordered(\(length)) = \(bound)")
  }

  /// An optimized kernel at `level` against its naive twin, both summing `length` products
  /// in the same order: exact where the micro-kernels multiply and add separately (the
  /// baseline level), `reordered(length)` where they fuse each step into one FMA (AVX2 and
  /// AVX-512), which rounds once where the twin rounds twice.
  public static func sameOrder(_ length: Int, at level: InstructionSet = .active) -> Tolerance {
    level.fusesMultiplyAdd ? .reordered(length) : .exact
  }

  public var description: String { name }
}

/// max|a − b| / max(1, max|reference|): the error measure every comparison uses.
///
/// Positions where both values are NaN, or both the same infinity, count as equal; any
/// other disagreement in NaN or infinity is an infinite error, as is a length mismatch.
public func maxScaledError<A: Collection<Float>, B: Collection<Float>>(_ ours: A, _ reference: B) -> Float {
  guard ours.count == reference.count else { return .infinity }
  let scale = referenceScale(reference)
  var worst: Float = 0
  for (a, b) in zip(ours, reference) {
    worst = max(worst, scaledDifference(a, b, scale: scale))
  }
  return worst
}

/// max(1, max|finite reference value|).
func referenceScale<B: Collection<Float>>(_ reference: B) -> Float {
  var scale: Float = 1
  for b in reference where b.isFinite { scale = max(scale, abs(b)) }
  return scale
}

/// |a − b| / scale, with NaN and infinity agreement as in `maxScaledError`.
func scaledDifference(_ a: Float, _ b: Float, scale: Float) -> Float {
  if a.isNaN || b.isNaN { return a.isNaN && b.isNaN ? 0 : .infinity }
  if a.isInfinite || b.isInfinite { return a == b ? 0 : .infinity }
  let d = abs(a - b) / scale
  return d.isFinite ? d : .infinity
}

/// Row-major coordinates of flat `index` in `shape`, written `(n, y, x, c)`.
public func coordinates(of index: Int, in shape: [Int]) -> String {
  var rest = index
  var parts = [Int](repeating: 0, count: shape.count)
  for d in stride(from: shape.count - 1, through: 0, by: -1) where shape[d] > 0 {
    parts[d] = rest % shape[d]
    rest /= shape[d]
  }
  return "(" + parts.map(String.init).joined(separator: ", ") + ")"
}

/// Checks that `ours` is within `tolerance` of `reference` and records one issue if not.
///
/// The issue names the case (`comment`), the first position beyond the tolerance (as
/// coordinates when `shape` is given), both values there, and the largest error and where
/// it occurs. Returns whether the arrays agreed, so callers can stop early.
@discardableResult
public func expectClose<A: Collection<Float>, B: Collection<Float>>(
  _ ours: A, _ reference: B, _ tolerance: Tolerance, _ comment: @autoclosure () -> String = "",
  shape: [Int]? = nil, sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
  let label = comment()
  let prefix = label.isEmpty ? "" : label + ": "
  guard ours.count == reference.count else {
    Issue.record(
      "\(prefix)\(ours.count) values, but the reference has \(reference.count)",
      sourceLocation: sourceLocation)
    return false
  }
  let scale = referenceScale(reference)
  var firstMismatch: (index: Int, a: Float, b: Float)?
  var mismatches = 0
  var worst: (error: Float, index: Int) = (0, 0)
  for (index, (a, b)) in zip(ours, reference).enumerated() {
    let error = scaledDifference(a, b, scale: scale)
    if error > worst.error || (error.isNaN && !worst.error.isNaN) { worst = (error, index) }
    if !(error <= tolerance.bound) {
      mismatches += 1
      if firstMismatch == nil { firstMismatch = (index, a, b) }
    }
  }
  guard let first = firstMismatch else { return true }
  func place(_ index: Int) -> String {
    shape.map { "index \(index) \(coordinates(of: index, in: $0))" } ?? "index \(index)"
  }
  Issue.record(
    """
    \(prefix)\(mismatches) of \(ours.count) values differ beyond tolerance \(tolerance) \
    (scale \(scale)); first at \(place(first.index)): ours \(first.a), reference \(first.b); \
    max scaled error \(worst.error) at \(place(worst.index))
    """,
    sourceLocation: sourceLocation)
  return false
}
