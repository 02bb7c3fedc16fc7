import VisageKernels

/// Float storage with a stable address, freed when the last reference goes.
///
/// The interpreter keeps constants and its activation arena in these so that prepared
/// steps can hold plain pointers into them.
// Not `Sendable`: an arena is written by one interpreter run at a time; the pointer never
// changes, so steps planned against it stay valid.
public final class ConstantBuffer {
  /// The first value.
  public let pointer: UnsafeMutablePointer<Float>
  /// Number of values.
  public let count: Int

  /// Allocates `count` zeros.
  public init(zeros count: Int) {
    self.count = count
    pointer = CacheAligned.allocate(Float.self, count: count)
    pointer.initialize(repeating: 0, count: max(count, 1))
  }

  /// Allocates a copy of `values`.
  public init(copying values: [Float]) {
    self.count = values.count
    pointer = CacheAligned.allocate(Float.self, count: values.count)
    pointer.initialize(repeating: 0, count: max(values.count, 1))
    if !values.isEmpty {
      values.withUnsafeBufferPointer { pointer.update(from: $0.baseAddress!, count: $0.count) }
    }
  }

  deinit { pointer.deallocate() }
}
