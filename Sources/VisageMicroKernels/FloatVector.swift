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
  static func prelu(_ x: Self, _ slope: Self) -> Self { x.replacing(with: x * slope, where: x .< 0) }
}

extension SIMD16: FloatVector where Scalar == Float {
  @inline(__always)
  static func maximum(_ a: Self, _ b: Self) -> Self { a.replacing(with: b, where: a .< b) }
  @inline(__always)
  static func minimum(_ a: Self, _ b: Self) -> Self { a.replacing(with: b, where: b .< a) }
  @inline(__always)
  static func prelu(_ x: Self, _ slope: Self) -> Self { x.replacing(with: x * slope, where: x .< 0) }
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
