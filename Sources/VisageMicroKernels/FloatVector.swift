// The vector vocabulary of the micro-kernels. Internal, and in every copy of this module:
// VisageKernels imports three copies, and public extension members of standard-library
// types from all three would be ambiguous there.

/// The vector shapes a kernel can be written over once: `SIMD16<Float>` where a row is wide
/// enough (one AVX-512 register when the target has it, four SSE registers otherwise) and
/// `SIMD8<Float>` at its tail.
///
/// Our own protocol rather than `SIMD`: code generic over `SIMD` reaches the standard
/// library's lane-by-lane defaults, which compiled to extracts, scalar compares and
/// branches here (measured 1.5x slower on the detector), whereas these requirements are
/// met by each concrete type's vector operations.
protocol FloatVector: BitwiseCopyable {
  init()
  init(repeating value: Float)
  static func + (lhs: Self, rhs: Self) -> Self
  static func * (lhs: Self, rhs: Self) -> Self
  /// self + a · b with one rounding (the standard library's fused multiply-add).
  func addingProduct(_ a: Self, _ b: Self) -> Self
  /// Lane-wise maximum, as `lanewiseMax`.
  static func maximum(_ a: Self, _ b: Self) -> Self
  /// Lane-wise minimum, as `lanewiseMin`.
  static func minimum(_ a: Self, _ b: Self) -> Self
  /// x where x ≥ 0, else x · slope (TFLite's PRELU).
  static func prelu(_ x: Self, _ slope: Self) -> Self
}

extension SIMD8: FloatVector where Scalar == Float {
  @inline(__always)
  static func maximum(_ a: Self, _ b: Self) -> Self { a.replacing(with: b, where: a .< b) }
  @inline(__always)
  static func minimum(_ a: Self, _ b: Self) -> Self { a.replacing(with: b, where: b .< a) }
  @inline(__always)
  static func prelu(_ x: Self, _ slope: Self) -> Self { x.replacing(with: x * slope, where: x .< Self()) }
}

extension SIMD16: FloatVector where Scalar == Float {
  @inline(__always)
  static func maximum(_ a: Self, _ b: Self) -> Self { a.replacing(with: b, where: a .< b) }
  @inline(__always)
  static func minimum(_ a: Self, _ b: Self) -> Self { a.replacing(with: b, where: b .< a) }
  @inline(__always)
  static func prelu(_ x: Self, _ slope: Self) -> Self { x.replacing(with: x * slope, where: x .< Self()) }
}

/// a · b + c, the step of every dot product in these kernels.
///
/// The copies built with `VISAGE_FMA` (AVX2 and AVX-512, whose CPUs all have FMA3) fuse it
/// into one instruction with one rounding, as XNNPACK's kernels do; the baseline copy
/// multiplies, rounds, then adds, as TFLite's reference kernels do, since SSE2 has no FMA
/// instruction and `addingProduct` there becomes a libm call per lane. So the baseline level
/// is bit-identical to the reference kernels and the FMA levels differ from them by
/// rounding (docs/parity.md, "The runtime against LiteRT").
@inline(__always)
func multiplyAdd<V: FloatVector>(_ a: V, _ b: V, _ c: V) -> V {
  #if VISAGE_FMA
    c.addingProduct(a, b)
  #else
    a * b + c
  #endif
}

extension UnsafePointer where Pointee == Float {
  /// Loads a `FloatVector` starting at `offset`, with no alignment requirement.
  @inline(__always)
  func load<V: FloatVector>(_: V.Type, at offset: Int) -> V {
    UnsafeRawPointer(self + offset).loadUnaligned(as: V.self)
  }
}

extension UnsafeMutablePointer where Pointee == Float {
  /// Loads a `FloatVector` starting at `offset`, with no alignment requirement.
  @inline(__always)
  func load<V: FloatVector>(_: V.Type, at offset: Int) -> V {
    UnsafeRawPointer(self + offset).loadUnaligned(as: V.self)
  }

  /// Stores a `FloatVector` starting at `offset`, with no alignment requirement.
  @inline(__always)
  func store<V: FloatVector>(_ value: V, at offset: Int) {
    UnsafeMutableRawPointer(self + offset).storeBytes(of: value, as: V.self)
  }
}
