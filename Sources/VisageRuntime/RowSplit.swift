import VisageKernels

/// Sharing a light operator's independent rows (or values) over the pool.
///
/// Convolutions decide for themselves (they count multiply-adds); the operators that only
/// move or combine values (ADD, MAX_POOL_2D, RESIZE_BILINEAR, LAYER_NORM, TRANSPOSE) use
/// this, with an estimate of their time on one thread, so the split happens only where it
/// pays: below about two microseconds, waking the other threads costs what it saves.
extension OperatorContext {
  /// Estimated work, in nanoseconds on one thread, below which an operator is not split.
  static let splitMinimumNanoseconds = 2000.0

  /// `0..<count` in parts to run on separate threads: one part when there is no pool, a
  /// single thread, or less than `splitMinimumNanoseconds` of work; otherwise about two per
  /// thread, each boundary a multiple of `alignment` (so threads do not write into one
  /// cache line, or a vector loop keeps its stride). Empty parts are left out.
  func parts(of count: Int, nanoseconds: Double, alignment: Int = 1) -> [Range<Int>] {
    guard let pool, pool.threadCount > 1, nanoseconds >= Self.splitMinimumNanoseconds,
      count >= 2 * alignment
    else { return [0..<count] }
    let wanted = min(2 * pool.threadCount, count / alignment)
    var bounds = (0..<wanted).map { (count * $0 / wanted) / alignment * alignment }
    bounds.append(count)
    return zip(bounds, bounds.dropFirst()).compactMap { $0 < $1 ? $0..<$1 : nil }
  }

  /// The step that runs `body(part)` for every index of `parts`: on the caller when there is
  /// one part, otherwise spread over the pool. The pool's closure is made here, once.
  func step(over parts: [Range<Int>], _ body: @escaping (Int) -> Void) -> Step {
    guard parts.count > 1, let pool else { return { body(0) } }
    let count = parts.count
    return { pool.run(count, body) }
  }
}
