import VisageKernels

/// What one run of an operator costs, in the unit its kernel works in, for the threading
/// policy below: multiply-adds for the convolutions and row mixing, values or window taps
/// for the operators that move or combine values.
public struct Work: Sendable {
  /// The kind of kernel, which sets the unit and its rough cost on one thread.
  public enum Kind: Sendable {
    /// CONV_2D and DEPTHWISE_CONV_2D, in multiply-adds.
    case convolution
    /// ROW_MIXING (the left-packed GEMM), in multiply-adds.
    case rowMixing
    /// A binary elementwise operator, in values written.
    case elementwise
    /// TRANSPOSE of the last two dimensions, in values moved.
    case transpose
    /// LAYER_NORM, in values written.
    case layerNorm
    /// MAX_POOL_2D, in window taps read.
    case pooling
    /// RESIZE_BILINEAR, in values written.
    case resize
    /// The zero-padded copy a convolution reads its windows from, in values copied.
    case paddedCopy

    /// Rough nanoseconds per unit on one thread: estimates, not measurements to rely on;
    /// they only place each operator on the right side of `Work.minimumNanoseconds`.
    var nanosecondsPerUnit: Double {
      switch self {
      case .convolution: 0.02
      case .rowMixing: 0.01
      case .elementwise: 0.2
      case .transpose: 0.4
      case .layerNorm: 0.5
      case .pooling: 0.075
      case .resize: 0.15
      // 32 K values copied reach the minimum: 2000 / 32768, exactly.
      case .paddedCopy: 0.06103515625
      }
    }

    /// How many parts per thread a shared run is cut into: more for convolutions, whose
    /// parts (tiles, output rows) vary more in cost.
    var partsPerThread: Int { self == .convolution ? 4 : 2 }
  }

  /// The kind of kernel.
  public var kind: Kind
  /// Units of work per run.
  public var count: Int

  /// `count` units of `kind`.
  public init(_ kind: Kind, _ count: Int) {
    self.kind = kind
    self.count = count
  }

  /// The estimated time of one run on one thread.
  public var nanoseconds: Double { kind.nanosecondsPerUnit * Double(count) }

  /// Estimated time below which an operator runs on the caller alone: about where waking
  /// the other threads costs as much as it saves.
  public static let minimumNanoseconds = 2000.0
}

/// The threading policy, in one place: an operator states its `Work`, and this decides
/// whether it is shared over the pool and into how many parts. Operators only say which
/// independent rows (or tiles, panels, values) their kernels can take in any order.
extension OperatorContext {
  /// Whether `work` is worth sharing: there is a pool of more than one thread and the
  /// estimate reaches `Work.minimumNanoseconds`.
  func shares(_ work: Work) -> Bool {
    guard let pool else { return false }
    return pool.threadCount > 1 && work.nanoseconds >= Work.minimumNanoseconds
  }

  /// The pool when `work` is worth sharing, else nil (for kernels that split themselves).
  func pool(for work: Work) -> ThreadPool? { shares(work) ? pool : nil }

  /// `0..<count` in parts to run on separate threads: one part unless `work` is worth
  /// sharing; otherwise `work.kind.partsPerThread` per thread, each boundary a multiple of
  /// `alignment` (so threads do not write into one cache line, or a vector loop keeps its
  /// stride). Empty parts are left out.
  func parts(of count: Int, _ work: Work, alignment: Int = 1) -> [Range<Int>] {
    guard let pool, shares(work), count >= 2 * alignment else { return [0..<count] }
    let wanted = min(work.kind.partsPerThread * pool.threadCount, count / alignment)
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
