/// Unaligned eight-lane loads and stores, the one vector shape the optimized kernels use.
///
/// Kernels write `a * b + c` rather than `addingProduct`: on baseline x86-64 the latter
/// becomes a libm `fmaf` call per lane.
public typealias Vector = SIMD8<Float>

extension UnsafePointer where Pointee == Float {
  /// Loads eight floats starting at `offset`, with no alignment requirement.
  @inlinable @inline(__always)
  public func vector(at offset: Int) -> Vector {
    UnsafeRawPointer(self + offset).loadUnaligned(as: Vector.self)
  }
}

extension UnsafeMutablePointer where Pointee == Float {
  /// Loads eight floats starting at `offset`, with no alignment requirement.
  @inlinable @inline(__always)
  public func vector(at offset: Int) -> Vector {
    UnsafeRawPointer(self + offset).loadUnaligned(as: Vector.self)
  }

  /// Stores eight floats starting at `offset`, with no alignment requirement.
  @inlinable @inline(__always)
  public func store(_ value: Vector, at offset: Int) {
    UnsafeMutableRawPointer(self + offset).storeBytes(of: value, as: Vector.self)
  }
}

/// The vector shapes a kernel can be written over once: `SIMD16<Float>` where a row is wide
/// enough (one AVX-512 register when the target has it, four SSE registers otherwise) and
/// `SIMD8<Float>` at its tail.
///
/// Our own protocol rather than `SIMD`: code generic over `SIMD` reaches the standard
/// library's lane-by-lane defaults, which compiled to extracts, scalar compares and
/// branches here (measured 1.5x slower on the detector), whereas these requirements are
/// met by each concrete type's vector operations.
public protocol FloatVector: BitwiseCopyable {
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
  @inlinable @inline(__always)
  public static func maximum(_ a: Self, _ b: Self) -> Self { a.replacing(with: b, where: a .< b) }
  @inlinable @inline(__always)
  public static func minimum(_ a: Self, _ b: Self) -> Self { a.replacing(with: b, where: b .< a) }
  @inlinable @inline(__always)
  public static func prelu(_ x: Self, _ slope: Self) -> Self { x.replacing(with: x * slope, where: x .< 0) }
}

extension SIMD16: FloatVector where Scalar == Float {
  @inlinable @inline(__always)
  public static func maximum(_ a: Self, _ b: Self) -> Self { a.replacing(with: b, where: a .< b) }
  @inlinable @inline(__always)
  public static func minimum(_ a: Self, _ b: Self) -> Self { a.replacing(with: b, where: b .< a) }
  @inlinable @inline(__always)
  public static func prelu(_ x: Self, _ slope: Self) -> Self { x.replacing(with: x * slope, where: x .< 0) }
}

extension UnsafePointer where Pointee == Float {
  /// Loads a `FloatVector` starting at `offset`, with no alignment requirement.
  @inlinable @inline(__always)
  public func load<V: FloatVector>(_: V.Type, at offset: Int) -> V {
    UnsafeRawPointer(self + offset).loadUnaligned(as: V.self)
  }
}

extension UnsafeMutablePointer where Pointee == Float {
  /// Loads a `FloatVector` starting at `offset`, with no alignment requirement.
  @inlinable @inline(__always)
  public func load<V: FloatVector>(_: V.Type, at offset: Int) -> V {
    UnsafeRawPointer(self + offset).loadUnaligned(as: V.self)
  }

  /// Stores a `FloatVector` starting at `offset`, with no alignment requirement.
  @inlinable @inline(__always)
  public func store<V: FloatVector>(_ value: V, at offset: Int) {
    UnsafeMutableRawPointer(self + offset).storeBytes(of: value, as: V.self)
  }
}

/// Lane-wise maximum. Written as a select because the standard library's `pointwiseMax`
/// and `clamped` compiled to per-lane code here (measured 10x slower in RELU and max pool).
@inlinable @inline(__always)
public func lanewiseMax(_ a: Vector, _ b: Vector) -> Vector { a.replacing(with: b, where: a .< b) }

/// Lane-wise minimum, as a select (see `lanewiseMax`).
@inlinable @inline(__always)
public func lanewiseMin(_ a: Vector, _ b: Vector) -> Vector { a.replacing(with: b, where: b .< a) }
