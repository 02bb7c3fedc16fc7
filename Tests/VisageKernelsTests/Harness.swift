import VisageKernels
import VisageTestSupport

/// Which twin of a kernel runs.
enum KernelPath: String, CaseIterable, Sendable {
  /// The naive loops that transliterate TFLite's reference kernels.
  case reference
  /// The SIMD / GEMM kernels.
  case optimized
}

/// Array-in, array-out wrappers around the pointer-based kernels, so tests read as maths.
enum Kernel {
  /// Regular convolution through the reference loops (`backend` nil) or a `ConvolutionPlan`.
  static func convolution(
    _ g: ConvolutionGeometry, input: [Float], filter: [Float], bias: [Float]?, clamp: Clamp,
    _ backend: ConvolutionPlan.Backend?
  ) -> [Float] {
    precondition(input.count == g.input.count)
    precondition(filter.count == g.output.channels * g.patchSize)
    var output = [Float](repeating: .nan, count: g.output.count)
    guard let backend else {
      withOptionalPointer(bias) { biasPointer in
        Convolution.reference(
          g, input: input, filter: filter, bias: biasPointer, clamp: clamp, output: &output)
      }
      return output
    }
    let plan = filter.withUnsafeBufferPointer { f in
      withEpilogue(bias: bias, clamp: clamp) { ConvolutionPlan(g, filter: f, epilogue: $0, backend: backend) }
    }
    input.withUnsafeBufferPointer { x in
      output.withUnsafeMutableBufferPointer { plan.run(input: x.baseAddress!, output: $0.baseAddress!) }
    }
    return output
  }

  /// Depthwise convolution; the optimized kernel needs a bias, so zeros stand in for none.
  static func depthwise(
    _ g: ConvolutionGeometry, input: [Float], filter: [Float], bias: [Float]?, clamp: Clamp,
    _ path: KernelPath
  ) -> [Float] {
    precondition(input.count == g.input.count)
    precondition(filter.count == g.filterHeight * g.filterWidth * g.output.channels)
    var output = [Float](repeating: .nan, count: g.output.count)
    switch path {
    case .reference:
      withOptionalPointer(bias) { biasPointer in
        DepthwiseConvolution.reference(
          g, input: input, filter: filter, bias: biasPointer, clamp: clamp, output: &output)
      }
    case .optimized:
      let b = bias ?? [Float](repeating: 0, count: g.output.channels)
      withEpilogue(bias: b, clamp: clamp) {
        DepthwiseConvolution.optimized(g, input: input, filter: filter, epilogue: $0, output: &output)
      }
    }
    return output
  }

  /// Max pooling.
  static func maxPool(
    _ g: PoolingGeometry, input: [Float], clamp: Clamp, _ path: KernelPath
  ) -> [Float] {
    precondition(input.count == g.input.count)
    var output = [Float](repeating: .nan, count: g.output.count)
    switch path {
    case .reference: Pooling.reference(g, input: input, clamp: clamp, output: &output)
    case .optimized: Pooling.optimized(g, input: input, clamp: clamp, output: &output)
    }
    return output
  }

  /// A unary function over every value.
  static func unary(_ function: UnaryFunction, _ input: [Float], _ path: KernelPath) -> [Float] {
    var output = [Float](repeating: .nan, count: input.count)
    input.withUnsafeBufferPointer { x in
      output.withUnsafeMutableBufferPointer { y in
        // Empty arrays may have no base address; give the kernel a valid one anyway.
        let xp = x.baseAddress ?? UnsafePointer(dummy)
        let yp = y.baseAddress ?? dummy
        switch path {
        case .reference: Elementwise.reference(function, xp, count: input.count, output: yp)
        case .optimized: Elementwise.optimized(function, xp, count: input.count, output: yp)
        }
      }
    }
    return output
  }

  /// A broadcasting binary function; nil when the shapes do not broadcast. With
  /// `coalesced`, the kernel gets `Broadcast.coalesced`, as the BINARY operator passes it.
  static func binary(
    _ function: BinaryFunction, lhs: [Float], _ lhsShape: [Int], rhs: [Float], _ rhsShape: [Int],
    clamp: Clamp, _ path: KernelPath, coalesced: Bool = false
  ) -> (shape: [Int], values: [Float])? {
    guard var broadcast = Broadcast(lhs: lhsShape, rhs: rhsShape) else { return nil }
    let shape = broadcast.outputShape
    if coalesced { broadcast = broadcast.coalesced }
    precondition(lhs.count == elementCount(lhsShape) && rhs.count == elementCount(rhsShape))
    var output = [Float](repeating: .nan, count: broadcast.count)
    switch path {
    case .reference:
      Elementwise.reference(function, broadcast, lhs: lhs, rhs: rhs, clamp: clamp, output: &output)
    case .optimized:
      Elementwise.optimized(function, broadcast, lhs: lhs, rhs: rhs, clamp: clamp, output: &output)
    }
    return (shape, output)
  }

  /// A sum or mean over `axes` of `shape`.
  static func reduce(
    _ kind: Reduction.Kind, _ input: [Float], shape: [Int], axes: [Int], _ path: KernelPath
  ) -> [Float] {
    let count = shape.indices.reduce(1) { axes.contains($1) ? $0 : $0 * shape[$1] }
    var output = [Float](repeating: .nan, count: count)
    switch path {
    case .reference: Reduction.reference(kind, input, shape: shape, axes: axes, output: &output)
    case .optimized: Reduction.optimized(kind, input, shape: shape, axes: axes, output: &output)
    }
    return output
  }

  /// Bilinear resize through the reference.
  static func resize(
    _ input: [Float], _ inputShape: NHWC, to outputShape: NHWC, options: Resampling.Options
  ) -> [Float] {
    var output = [Float](repeating: .nan, count: outputShape.count)
    Resampling.reference(
      input: input, inputShape, options: options, output: &output, outputShape)
    return output
  }

  private static func withOptionalPointer<R>(
    _ values: [Float]?, _ body: (UnsafePointer<Float>?) -> R
  ) -> R {
    guard let values else { return body(nil) }
    return values.withUnsafeBufferPointer { body($0.baseAddress) }
  }

  nonisolated(unsafe) private static let dummy = UnsafeMutablePointer<Float>.allocate(capacity: 8)
}

/// An NHWC shape from its four sizes.
func nhwc(_ b: Int, _ h: Int, _ w: Int, _ c: Int) -> NHWC {
  NHWC(batch: b, height: h, width: w, channels: c)
}

/// Calls `body` with an epilogue bound to these arrays, which stay pinned for the call.
func withEpilogue<R>(
  bias: [Float]? = nil, clamp: Clamp = .none, slopes: [Float]? = nil, residual: [Float]? = nil,
  residualChannels: Int = .max, _ body: (Epilogue.Bound) -> R
) -> R {
  func pinned(_ values: [Float]?, _ body: (UnsafePointer<Float>?) -> R) -> R {
    guard let values else { return body(nil) }
    return values.withUnsafeBufferPointer { body($0.baseAddress) }
  }
  return pinned(bias) { b in
    pinned(slopes) { s in
      pinned(residual) { r in
        body(Epilogue.Bound(bias: b, residual: r, residualChannels: residualChannels, clamp: clamp, slopes: s))
      }
    }
  }
}
