import CVisageISA

/// A GEMM whose right-hand matrix is a constant, packed once into 16-column panels.
///
/// C[m×n] = A[m×k] · Bᵀ with B given N×K (an OHWI filter). Each panel holds K rows of 16
/// consecutive output channels (zero-padded past N), so the micro-kernel streams one panel
/// while a few rows of A (see `tileRows`) are broadcast against it. Every output is summed in
/// k order with a multiply then an add, exactly like the reference convolution, so results
/// match it to the bit wherever the compiler does not contract the two into a fused
/// multiply-add.
///
/// A row of A need not be contiguous: it may be `segments.count` runs of equal length at
/// the given offsets from the row's start. That lets a convolution read its patches straight
/// from a (padded) input image, one run per filter row, instead of copying them out first.
///
/// A convolution's `Epilogue` (bias, an optional residual, clamp, optional PReLU) is applied
/// to the accumulators before they are stored, in the order separate operators would apply
/// it, so C is written once and never re-read. The micro-kernels keep their own unrolled
/// copy of those steps (see PackedGEMM+Finish.swift), taking their parameters from it.
// Threads: the packed panels, bias and slopes are written only in `init`, then only read.
public final class PackedGEMM {
  /// Output columns.
  public let n: Int
  /// Reduction length.
  public let k: Int
  private let panels: UnsafeMutablePointer<Float>
  private var panelCount: Int { (n + 15) / 16 }
  /// Bias and PReLU slopes padded to whole panels, so the finish loads them 16 at a time.
  private let bias: UnsafeMutablePointer<Float>
  private let slopes: UnsafeMutablePointer<Float>?
  /// Rows of C per micro-kernel call (8, 6, 4, 2 or 1; twelve where a six-row level meets
  /// a GEMM of one half panel, eight columns).
  public let tileRows: Int
  /// Everything above as the micro-kernels take it (internal for the AArch64 tests).
  let weights: VisagePackedWeights
  /// The micro-kernels' entry point at the instruction set chosen at init.
  private let kernel: MicroKernels.PackedGEMM

  /// Packs `b` (N×K row-major, row stride `ldb`) and the `epilogue`'s per-column bias (N
  /// values, zeros when nil), clamp and optional PReLU slopes (its residual is ignored:
  /// each `multiply` names its own). The micro-kernels run at
  /// `instructionSet` (the process's, `InstructionSet.active`, by default). `tileRows`
  /// defaults to that instruction set's (`TileHeight`). Any
  /// height and any instruction set give the same results.
  public init(
    b: UnsafePointer<Float>, n: Int, k: Int, ldb: Int, epilogue: Epilogue.Bound = Epilogue.Bound(),
    tileRows: Int? = nil,
    instructionSet: InstructionSet = .active
  ) {
    precondition(tileRows.map { [1, 2, 4, 6, 8].contains($0) } ?? true)
    precondition(InstructionSet.runnable.contains(instructionSet), "\(instructionSet) is not supported here")
    self.tileRows = tileRows ?? TileHeight.rows(at: instructionSet)
    kernel = MicroKernels.of(instructionSet).packedGEMM
    self.n = n
    self.k = k
    let count = max(1, (n + 15) / 16 * 16 * k)
    panels = CacheAligned.allocate(Float.self, count: count)
    panels.initialize(repeating: 0, count: count)
    for column in 0..<n {
      let panel = panels + (column / 16) * 16 * k
      for p in 0..<k { panel[p * 16 + column % 16] = b[column * ldb + p] }
    }
    let padded = (n + 15) / 16 * 16
    func copy(_ values: UnsafePointer<Float>?, padding: Float) -> UnsafeMutablePointer<Float> {
      let copy = CacheAligned.allocate(Float.self, count: padded)
      copy.initialize(repeating: padding, count: max(padded, 1))
      if let values { copy.update(from: values, count: n) }
      return copy
    }
    self.bias = copy(epilogue.bias, padding: 0)
    self.slopes = epilogue.slopes.map { copy($0, padding: 1) }
    weights = VisagePackedWeights(
      panels: panels, n: n, k: k, tileRows: self.tileRows, bias: self.bias,
      slopes: self.slopes.map { UnsafePointer($0) },
      lower: epilogue.clamp.lowerBound, upper: epilogue.clamp.upperBound)
  }

  deinit {
    panels.deallocate()
    bias.deallocate()
    slopes?.deallocate()
  }

  /// Computes `c[m×n] = a[m×k] · Bᵀ` and finishes it, overwriting `c` (row stride `ldc`).
  ///
  /// Row `i` of A is the `segments.count` runs `a + i·lda + segments.offsets[s]`, each
  /// `k / segments.count` long (by default one run of k). With a `residual`, row `i` of it
  /// is added after the bias.
  public func multiply(
    m: Int, a: UnsafePointer<Float>, lda: Int, segments: Segments = .contiguous,
    c: UnsafeMutablePointer<Float>, ldc: Int, residual: Residual? = nil
  ) {
    precondition(segments.count > 0 && k % segments.count == 0)
    kernel(
      weights,
      VisageGEMMOperands(
        m: m, a: a, lda: lda, segmentOffsets: segments.offsets, segmentCount: segments.count, c: c, ldc: ldc,
        residual: residual?.values, residualChannels: residual?.channels ?? 0))
  }

  /// Where the runs of each row of A start, relative to the row's start.
  public struct Segments {
    /// Offsets of the runs, in order of k.
    public var offsets: UnsafePointer<Int>
    /// How many runs each row has.
    public var count: Int

    /// One run: A's rows are contiguous.
    public static var contiguous: Segments { Segments(offsets: zeroOffset, count: 1) }
    nonisolated(unsafe) private static let zeroOffset: UnsafePointer<Int> = {
      let pointer = UnsafeMutablePointer<Int>.allocate(capacity: 1)
      pointer.initialize(to: 0)
      return UnsafePointer(pointer)
    }()

    /// Runs starting at `offsets` (which must outlive every multiply that uses them).
    public init(offsets: UnsafePointer<Int>, count: Int) {
      self.offsets = offsets
      self.count = count
    }
  }

  /// A tensor added to C after the bias: `channels` values per row (channels ≤ n; the rest
  /// of each row gets +0, as after a zero PAD of the channels).
  public struct Residual {
    /// Row 0 of the residual.
    public var values: UnsafePointer<Float>
    /// Values per row.
    public var channels: Int

    /// A residual of `channels` values per row starting at `values`.
    public init(_ values: UnsafePointer<Float>, channels: Int) {
      self.values = values
      self.channels = channels
    }

    /// The residual from row `row` on.
    func rows(from row: Int) -> Residual { Residual(values + row * channels, channels: channels) }
  }
}
