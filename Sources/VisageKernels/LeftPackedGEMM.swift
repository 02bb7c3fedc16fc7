import CVisageISA

/// A GEMM whose left-hand matrix is a constant, packed once into 8-row panels:
/// C[m×n] = A[m×k] · X[k×n], with n a multiple of 16.
///
/// This is `PackedGEMM` with the roles swapped, for a 1×1 convolution applied across the
/// rows of a matrix instead of its channels (the blendshapes model's token mixing, which
/// TFLite spells TRANSPOSE → CONV_2D → TRANSPOSE). Computed this way the transposes go
/// away, X's rows are read in place as 16-lane vectors, and an output count like 97 costs
/// one short row panel instead of a 16-column panel that is almost all padding.
///
/// Every output is summed in k order with a multiply then an add, then gets its row's bias,
/// an optional residual and the clamp, exactly as the reference convolution orders them, so
/// results match `reference` to the bit (where the compiler does not contract the multiply
/// and add into a fused multiply-add).
// Threads: the packed panels and bias are written only in `init`, then only read.
public final class LeftPackedGEMM {
  /// Output rows.
  public let m: Int
  /// Reduction length.
  public let k: Int
  /// Panel p holds rows 8p..<8p+8 of A column by column (`panel[j·8 + r] = A[8p + r][j]`),
  /// zero past row m, so one k step's eight weights share a cache line.
  private let panels: UnsafeMutablePointer<Float>
  /// The bias, zero-padded to whole panels.
  private let bias: UnsafeMutablePointer<Float>
  /// Rows of C per micro-kernel call: 8, 4 or 2 (see `TileHeight.leftPackedRows`).
  public let tileRows: Int
  /// Everything above as the micro-kernels take it (internal for the AArch64 tests).
  let weights: VisageLeftPackedWeights
  /// The micro-kernels' entry point at the instruction set chosen at init.
  private let kernel: MicroKernels.LeftPackedGEMM

  /// Panels of eight rows of C: the unit `multiply` splits work by.
  public var panelCount: Int { (m + 7) / 8 }

  /// Packs `a` (m×k row-major, row stride `lda`) and the `epilogue`'s per-row bias (zeros
  /// when nil) and clamp, for the micro-kernels at `instructionSet` (it takes no PReLU
  /// slopes; its residual is ignored: each `multiply` names its own). `tileRows` defaults to that
  /// instruction set's (`TileHeight.leftPackedRows`). Any height and any instruction set give
  /// the same results.
  public init(
    a: UnsafePointer<Float>, m: Int, k: Int, lda: Int, epilogue: Epilogue.Bound = Epilogue.Bound(),
    tileRows: Int? = nil, instructionSet: InstructionSet = .active
  ) {
    precondition(m > 0 && k > 0 && lda >= k)
    precondition(epilogue.slopes == nil, "the left-packed micro-kernels have no PReLU")
    precondition(tileRows.map { [2, 4, 8].contains($0) } ?? true)
    precondition(InstructionSet.runnable.contains(instructionSet), "\(instructionSet) is not supported here")
    kernel = MicroKernels.of(instructionSet).leftPackedGEMM
    self.tileRows = tileRows ?? TileHeight.leftPackedRows(at: instructionSet)
    self.m = m
    self.k = k
    let rows = (m + 7) / 8 * 8
    panels = CacheAligned.allocate(Float.self, count: rows * k)
    panels.initialize(repeating: 0, count: rows * k)
    for row in 0..<m {
      let panel = panels + (row / 8) * 8 * k
      for j in 0..<k { panel[j * 8 + row % 8] = a[row * lda + j] }
    }
    self.bias = CacheAligned.allocate(Float.self, count: rows)
    self.bias.initialize(repeating: 0, count: rows)
    if let bias = epilogue.bias { self.bias.update(from: bias, count: m) }
    weights = VisageLeftPackedWeights(
      panels: panels, m: m, k: k, bias: self.bias, tileRows: self.tileRows, lower: epilogue.clamp.lowerBound,
      upper: epilogue.clamp.upperBound)
  }

  deinit {
    panels.deallocate()
    bias.deallocate()
  }

  /// Computes rows of `c[m×n] = clamp(A · x + bias (+ residual))`, overwriting them.
  ///
  /// `x` is k×n with row stride `ldx`; `c` and `residual` (when given) are m×n with row
  /// stride `ldc`. `panels` limits the work to those 8-row panels (all by default), so
  /// threads can share it.
  public func multiply(
    n: Int, x: UnsafePointer<Float>, ldx: Int, c: UnsafeMutablePointer<Float>, ldc: Int,
    residual: UnsafePointer<Float>? = nil, panels part: Range<Int>? = nil
  ) {
    precondition(n % 16 == 0 && ldx >= n && ldc >= n)
    kernel(weights, n, x, ldx, c, ldc, residual, part ?? 0..<panelCount)
  }

  /// The naive twin: `c = epilogue(a · x)` loop by loop, summing in k order. The
  /// epilogue's channels are C's rows (one bias per row); its residual, when given, is m×n
  /// with row stride `ldc`.
  public static func reference(
    m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, x: UnsafePointer<Float>, ldx: Int,
    epilogue: Epilogue.Bound, c: UnsafeMutablePointer<Float>, ldc: Int
  ) {
    for i in 0..<m {
      for j in 0..<n {
        var total: Float = 0
        for p in 0..<k { total += x[p * ldx + j] * a[i * lda + p] }
        c[i * ldc + j] = epilogue(total, channel: i, residualAt: i * ldc + j)
      }
    }
  }
}
