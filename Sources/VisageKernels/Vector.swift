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

// The generic load and store below serve the wider shape (SIMD16) of the one SIMD loop
// left in this module that uses it (bilinear resizing). The micro-kernels have their own vector vocabulary
// (VisageMicroKernels' FloatVector.swift), internal to each of their copies.

extension UnsafePointer where Pointee == Float {
  /// Loads a vector of floats starting at `offset`, with no alignment requirement.
  @inlinable @inline(__always)
  public func load<V: SIMD>(_: V.Type, at offset: Int) -> V where V.Scalar == Float {
    UnsafeRawPointer(self + offset).loadUnaligned(as: V.self)
  }
}

extension UnsafeMutablePointer where Pointee == Float {
  /// Stores a vector of floats starting at `offset`, with no alignment requirement.
  @inlinable @inline(__always)
  public func store<V: SIMD>(_ value: V, at offset: Int) where V.Scalar == Float {
    UnsafeMutableRawPointer(self + offset).storeBytes(of: value, as: V.self)
  }
}

/// Lane-wise maximum. Written as a select because the standard library's `pointwiseMax`
/// and `clamped` compiled to per-lane code here, not one vector instruction.
@inlinable @inline(__always)
public func lanewiseMax(_ a: Vector, _ b: Vector) -> Vector { a.replacing(with: b, where: a .< b) }

/// Lane-wise minimum, as a select (see `lanewiseMax`).
@inlinable @inline(__always)
public func lanewiseMin(_ a: Vector, _ b: Vector) -> Vector { a.replacing(with: b, where: b .< a) }
