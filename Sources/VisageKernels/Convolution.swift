/// Regular 2-D convolution in NHWC with OHWI filters.
///
/// The optimized path is one GEMM: a 1×1, stride-1, unpadded convolution multiplies the input
/// directly; any other shape first gathers patches into a planned im2col buffer. The GEMM is
/// either `PackedGEMM` (weights packed at load; bit-identical to the reference and faster than
/// OpenBLAS on these models' small matrices, measured) or BLAS sgemm.
public enum Convolution {}

/// A convolution prepared once: weights copied, scratch allocated, ready to run many times.
public final class ConvolutionPlan: @unchecked Sendable {
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
  /// The OHWI filter as BLAS reads it; nil for the packed backend, which keeps only its panels.
  private let blasFilter: UnsafeMutableBufferPointer<Float>?
  private let packed: PackedGEMM?
  private let bias: UnsafeMutableBufferPointer<Float>
  private let clamp: Clamp
  /// Per-channel PReLU slopes applied after bias and clamp, when a PRELU was fused in.
  private let slopes: UnsafeMutableBufferPointer<Float>?
  /// im2col rows (one per output pixel), empty when the input can be multiplied in place.
  private let patches: UnsafeMutableBufferPointer<Float>

  /// Copies the OHWI `filter`, optional `bias` and optional PReLU `slopes` (one per output
  /// channel) and allocates the patch buffer.
  public init(
    _ geometry: ConvolutionGeometry, filter: UnsafeBufferPointer<Float>,
    bias: UnsafeBufferPointer<Float>?, clamp: Clamp, slopes: UnsafeBufferPointer<Float>? = nil,
    backend: Backend = .packed
  ) {
    self.backend = backend
    precondition(filter.count == geometry.output.channels * geometry.patchSize)
    precondition(slopes == nil || slopes!.count == geometry.output.channels)
    self.geometry = geometry
    self.clamp = clamp
    if let slopes {
      let copy = UnsafeMutableBufferPointer<Float>.allocate(capacity: slopes.count)
      _ = copy.initialize(from: slopes)
      self.slopes = copy
    } else {
      self.slopes = nil
    }
    switch backend {
    case .packed:
      packed = PackedGEMM(
        b: filter.baseAddress!, n: geometry.output.channels, k: geometry.patchSize,
        ldb: geometry.patchSize)
      blasFilter = nil
    case .blas:
      packed = nil
      let copy = UnsafeMutableBufferPointer<Float>.allocate(capacity: filter.count)
      _ = copy.initialize(from: filter)
      blasFilter = copy
    }
    self.bias = .allocate(capacity: geometry.output.channels)
    if let bias {
      _ = self.bias.initialize(from: bias)
    } else {
      self.bias.initialize(repeating: 0)
    }
    let patchCount = geometry.isPointwise ? 0 : geometry.output.batch * geometry.output.height
      * geometry.output.width * geometry.patchSize
    self.patches = .allocate(capacity: patchCount)
    self.patches.initialize(repeating: 0)
  }

  deinit {
    blasFilter?.deallocate()
    bias.deallocate()
    patches.deallocate()
    slopes?.deallocate()
  }

  /// Runs the convolution: `input` holds `geometry.input.count` values, `output` receives
  /// `geometry.output.count`.
  ///
  /// A `residual` of the output's shape is added after the bias, before clamp and PReLU.
  public func run(
    input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
    residual: UnsafePointer<Float>? = nil
  ) {
    let g = geometry
    let rows = g.output.batch * g.output.height * g.output.width
    let k = g.patchSize
    let a: UnsafePointer<Float>
    if g.isPointwise {
      a = input
    } else {
      gatherPatches(input)
      a = UnsafePointer(patches.baseAddress!)
    }
    if let packed {
      packed.multiply(m: rows, a: a, lda: k, c: output, ldc: g.output.channels)
    } else if let blasFilter {
      GEMM.multiply(
        m: rows, n: g.output.channels, k: k, a: a, lda: k,
        b: blasFilter.baseAddress!, ldb: k, transposeB: true, c: output, ldc: g.output.channels)
    }
    Elementwise.addBiasAndActivate(
      output, rows: rows, channels: g.output.channels,
      bias: UnsafePointer(bias.baseAddress!), clamp: clamp,
      slopes: slopes.map { UnsafePointer($0.baseAddress!) }, residual: residual)
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
