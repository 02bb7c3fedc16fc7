/// Regular 2-D convolution in NHWC with OHWI filters.
///
/// The optimized path is one GEMM per image (1×1, stride 1, unpadded: the input is the left
/// matrix) or one per output row (any other shape: the left matrix's rows are the windows,
/// read in place from a zero-padded copy of the input, one run per filter row). The GEMM is
/// either `PackedGEMM` (weights packed at load; bit-identical to the reference, and faster than
/// OpenBLAS on these models' small matrices: compare `visage bench` with and without
/// `--kernels blas`) or BLAS sgemm, which reads patches
/// gathered into a planned im2col buffer.
public enum Convolution {}

/// A convolution prepared once: weights copied, scratch allocated, ready to run many times.
// Not `Sendable`: its scratch belongs to one `run` at a time (the interpreter's). Within a
// run the pool's threads share it, each on rows of its own; the weights are only read.
public final class ConvolutionPlan {
  /// Which matrix multiply runs the convolution.
  public enum Backend: Sendable {
    /// `PackedGEMM`: weights packed into 16-column panels at load, sums in reference order.
    case packed
    /// BLAS sgemm (OpenBLAS on Linux, Accelerate on Apple platforms).
    case blas
  }

  /// The shape this plan was made for.
  public let geometry: ConvolutionGeometry
  /// The matrix multiply in use.
  public let backend: Backend
  /// Whether the input itself is the GEMM's left matrix (no im2col).
  public var isPointwise: Bool { geometry.isPointwise }
  /// The packed GEMM, which also holds the epilogue's bias, clamp and slopes; nil for BLAS.
  private let packed: PackedGEMM?
  /// What BLAS needs: the OHWI filter, and the epilogue over copies of its bias (zeros when
  /// none) and slopes, which `owned` holds.
  private let blas: (filter: [Float], epilogue: Epilogue.Bound)?
  private let owned: [UnsafeMutableBufferPointer<Float>]
  /// im2col rows (one per output pixel) for BLAS; empty otherwise.
  private let patches: UnsafeMutableBufferPointer<Float>
  /// How the packed backend reads windows in place; nil when pointwise or BLAS.
  private let windows: Windows?

  /// Copies the OHWI `filter` and the `epilogue`'s bias and PReLU slopes (one per output
  /// channel each, when present; its residual, if any, is ignored: each run names its own)
  /// and allocates the scratch the backend needs.
  public init(
    _ geometry: ConvolutionGeometry, filter: UnsafeBufferPointer<Float>, epilogue: Epilogue.Bound,
    backend: Backend = .packed
  ) {
    self.backend = backend
    precondition(filter.count == geometry.output.channels * geometry.patchSize)
    self.geometry = geometry
    let channels = geometry.output.channels
    switch backend {
    case .packed:
      packed = PackedGEMM(
        b: filter.baseAddress!, n: channels, k: geometry.patchSize, ldb: geometry.patchSize,
        epilogue: epilogue.with(residual: nil))
      blas = nil
      owned = []
      windows = geometry.isPointwise ? nil : Windows(geometry)
    case .blas:
      packed = nil
      func copy(_ values: UnsafePointer<Float>?) -> UnsafeMutableBufferPointer<Float> {
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: channels)
        buffer.initialize(repeating: 0)
        if let values { buffer.baseAddress!.update(from: values, count: channels) }
        return buffer
      }
      let bias = copy(epilogue.bias)
      let slopes = epilogue.slopes.map(copy)
      owned = [bias] + (slopes.map { [$0] } ?? [])
      blas = (
        Array(filter),
        Epilogue.Bound(
          bias: UnsafePointer(bias.baseAddress!), clamp: epilogue.clamp,
          slopes: slopes.map { UnsafePointer($0.baseAddress!) })
      )
      windows = nil
    }
    let patchCount =
      backend == .blas && !geometry.isPointwise
      ? geometry.output.batch * geometry.output.height * geometry.output.width * geometry.patchSize : 0
    self.patches = .allocate(capacity: patchCount)
    self.patches.initialize(repeating: 0)
  }

  deinit {
    patches.deallocate()
    for buffer in owned { buffer.deallocate() }
  }

  /// Runs the convolution: `input` holds `geometry.input.count` values, `output` receives
  /// `geometry.output.count`.
  ///
  /// A `residual` is added after the bias, before clamp and PReLU. It has the output's shape,
  /// or `residualChannels` channels per pixel when fewer (the rest get zeros, as a PAD of the
  /// channels would give them).
  public func run(
    input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
    residual: UnsafePointer<Float>? = nil, residualChannels: Int? = nil
  ) {
    let g = geometry
    let rows = g.output.batch * g.output.height * g.output.width
    let k = g.patchSize
    let channels = residualChannels ?? g.output.channels
    if let packed {
      let extra = residual.map { PackedGEMM.Residual($0, channels: channels) }
      if let windows {
        windows.multiply(packed, input: input, output: output, residual: extra)
      } else {
        packed.multiply(m: rows, a: input, lda: k, c: output, ldc: g.output.channels, residual: extra)
      }
      return
    }
    guard let blas else { return }
    let a: UnsafePointer<Float>
    if g.isPointwise {
      a = input
    } else {
      gatherPatches(input)
      a = UnsafePointer(patches.baseAddress!)
    }
    GEMM.optimized(
      m: rows, n: g.output.channels, k: k, a: a, lda: k, b: blas.filter, ldb: k, transposeB: true,
      c: output, ldc: g.output.channels)
    blas.epilogue.with(residual: residual, channels: channels).apply(
      to: output, rows: rows, channels: g.output.channels)
  }

  /// The work of `run(input:output:residual:residualChannels:)` with these fixed addresses,
  /// spread over `pool`'s threads when one is given: the packed backend's output split into
  /// `partsPerThread` parts per thread (whole 8-row tiles of pixels, or whole output rows);
  /// BLAS on the caller alone. Whether a convolution is worth sharing at all, and whether
  /// its padded copy is (`fillsInParallel`, then in two parts per thread), is the caller's
  /// threading policy (VisageRuntime's Threading.swift). The closures are made here, once,
  /// so a run allocates nothing.
  public func step(
    input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>? = nil,
    residualChannels: Int? = nil, pool: ThreadPool?, partsPerThread: Int = 4, fillsInParallel: Bool = false
  ) -> () -> Void {
    let serial = { [self] in
      run(input: input, output: output, residual: residual, residualChannels: residualChannels)
    }
    let g = geometry
    guard let pool, pool.threadCount > 1, let packed else { return serial }
    let extra = residual.map { PackedGEMM.Residual($0, channels: residualChannels ?? g.output.channels) }
    let ldc = g.output.channels
    if let windows {
      let rows = windows.rowCount
      let tasks = min(rows, partsPerThread * pool.threadCount)
      guard tasks > 1 else { return serial }
      // The padded copy is filled once per run, before the rows are shared out: by the
      // caller when small, and otherwise in a loop of its own (a large copy made by the
      // caller alone leaves the other threads waiting).
      let image = windows.source(for: input)
      let body: (Int) -> Void = { task in
        windows.multiply(packed, image: image, output: output, residual: extra, rows: Self.part(task, of: tasks, rows))
      }
      let fillRows = windows.fillRowCount
      guard fillsInParallel, fillRows >= 2 * pool.threadCount else {
        return {
          windows.fill(input, rows: 0..<fillRows)
          pool.run(tasks, body)
        }
      }
      let fillTasks = 2 * pool.threadCount
      let fill: (Int) -> Void = { task in windows.fill(input, rows: Self.part(task, of: fillTasks, fillRows)) }
      return {
        pool.run(fillTasks, fill)
        pool.run(tasks, body)
      }
    }
    let pixels = g.output.batch * g.output.height * g.output.width
    let tiles = (pixels + 7) / 8
    let tasks = min(tiles, partsPerThread * pool.threadCount)
    guard tasks > 1 else { return serial }
    let k = g.patchSize
    let body: (Int) -> Void = { task in
      let part = Self.part(task, of: tasks, tiles)
      let rows = (part.lowerBound * 8)..<min(pixels, part.upperBound * 8)
      packed.multiply(
        m: rows.count, a: input + rows.lowerBound * k, lda: k, c: output + rows.lowerBound * ldc, ldc: ldc,
        residual: extra?.rows(from: rows.lowerBound))
    }
    return { pool.run(tasks, body) }
  }

  /// Part `index` of `count` near-equal parts of `0..<total`.
  public static func part(_ index: Int, of count: Int, _ total: Int) -> Range<Int> {
    (total * index / count)..<(total * (index + 1) / count)
  }

  /// im2col: one row of kh·kw·cin values per output pixel, zeros where the window leaves
  /// the image, in the same (fy, fx, c) order as an OHWI filter row.
  private func gatherPatches(_ input: UnsafePointer<Float>) {
    let g = geometry
    let cin = g.input.channels
    var row = patches.baseAddress!
    for b in 0..<g.output.batch {
      for outY in 0..<g.output.height {
        let originY = outY * g.strideHeight - g.padTop
        for outX in 0..<g.output.width {
          let originX = outX * g.strideWidth - g.padLeft
          for fy in 0..<g.filterHeight {
            let inY = originY + g.dilationHeight * fy
            for fx in 0..<g.filterWidth {
              let inX = originX + g.dilationWidth * fx
              if inY >= 0, inY < g.input.height, inX >= 0, inX < g.input.width {
                row.update(from: input + g.input.offset(b, inY, inX, 0), count: cin)
              } else {
                row.update(repeating: 0, count: cin)
              }
              row += cin
            }
          }
        }
      }
    }
  }
}
