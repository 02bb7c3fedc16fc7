/// Memory on 64-byte boundaries, for everything the kernels stream with 16-lane vectors.
///
/// `UnsafeMutablePointer.allocate` only promises the element's alignment, and glibc's
/// malloc returns addresses 16 bytes past a cache line for large blocks: there, every
/// 64-byte load or store of a packed panel or an activation spans two cache lines.
public enum CacheAligned {
  /// The alignment, in bytes: one cache line, one AVX-512 vector.
  public static let alignment = 64

  /// `count` uninitialized values (at least one) on a cache-line boundary; free them with
  /// `deallocate()` as usual.
  public static func allocate<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
    UnsafeMutableRawPointer.allocate(
      byteCount: max(count, 1) * MemoryLayout<T>.stride, alignment: max(alignment, MemoryLayout<T>.alignment)
    ).bindMemory(to: T.self, capacity: max(count, 1))
  }
}
