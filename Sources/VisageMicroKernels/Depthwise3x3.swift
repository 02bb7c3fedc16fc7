import CVisageISA

/// The 3×3 depthwise row kernel's entry point in this copy of the micro-kernels: one output
/// row from its three input rows (a row of zeros standing in for one outside the image).
/// The layer's plan and the reasons for its shape are in VisageKernels'
/// DepthwiseConvolution+Rows3x3.swift.
public func depthwise3x3Row(
  _ layer: VisageDepthwise3x3, _ r0: UnsafePointer<Float>, _ r1: UnsafePointer<Float>, _ r2: UnsafePointer<Float>,
  _ out: UnsafeMutablePointer<Float>
) {
  let channels = layer.channels
  var start = 0
  while start < layer.outputWidth {
    let span = Span(layer, start, min(start + layer.spanWidth, layer.outputWidth))
    // Blocks of 16 channels, then a last block of 16 or 8 shifted back to end at the
    // last channel: recomputing a few channels is cheaper than a scalar tail. On arm64,
    // blocks of 8: sixteen channels' nine weights are 36 of NEON's 32 registers, and
    // llvm-mca has that loop reloading 21 of them per pixel (docs/speed.md, "arm64").
    var c = 0
    while c < channels {
      if wideBlocks && channels - c >= 16 {
        depthwise3x3Block(SIMD16<Float>.self, c, r0, r1, r2, out, span, layer)
        c += 16
      } else if wideBlocks && channels >= 16 && channels - c > 8 {
        depthwise3x3Block(SIMD16<Float>.self, channels - 16, r0, r1, r2, out, span, layer)
        c = channels
      } else {
        depthwise3x3Block(SIMD8<Float>.self, min(c, channels - 8), r0, r1, r2, out, span, layer)
        c += 8
      }
    }
    start += layer.spanWidth
  }
}

/// Whether the depthwise row kernel takes 16 channels at a time (8 on arm64).
@inline(__always)
private var wideBlocks: Bool {
  #if arch(arm64)
    false
  #else
    true
  #endif
}

/// Channels `c..<c + V.scalarCount` of one span of an output row, from input rows `r0`,
/// `r1`, `r2`.
/// Taps are summed in filter order from zero, as the reference does, skipping those off
/// the left or right edge.
///
/// The pixel loop has no branches: a PReLU runs as a second pass over the block, because
/// testing for it inside the loop made LLVM split every vector into scalar and 128-bit
/// pieces (measured 4x slower). Not inlined, so that each width is optimized on its own.
@inline(never)
private func depthwise3x3Block<V: FloatVector>(
  _: V.Type, _ c: Int, _ r0: UnsafePointer<Float>, _ r1: UnsafePointer<Float>,
  _ r2: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, _ span: Span, _ layer: VisageDepthwise3x3
) {
  let (filter, bias) = (layer.filter, layer.bias)
  let c1 = layer.channels
  let c2 = 2 * c1
  let step = layer.strideWidth * c1
  let w0 = filter.load(V.self, at: c)
  let w1 = filter.load(V.self, at: c1 + c)
  let w2 = filter.load(V.self, at: c2 + c)
  let w3 = filter.load(V.self, at: 3 * c1 + c)
  let w4 = filter.load(V.self, at: 4 * c1 + c)
  let w5 = filter.load(V.self, at: 5 * c1 + c)
  let w6 = filter.load(V.self, at: 6 * c1 + c)
  let w7 = filter.load(V.self, at: 7 * c1 + c)
  let w8 = filter.load(V.self, at: 8 * c1 + c)
  let bv = bias.load(V.self, at: c)
  // The clamp spelled out on V: the generic `Clamp` call stayed a call per pixel.
  let lower = V(repeating: layer.lower)
  let upper = V(repeating: layer.upper)
  var o = out + span.start * c1 + c
  if span.leftEdge {
    // The window starts at column -1: its fx = 0 taps are padding.
    var acc = multiplyAdd(r0.load(V.self, at: c), w1, V())
    acc = multiplyAdd(r0.load(V.self, at: c1 + c), w2, acc)
    acc = multiplyAdd(r1.load(V.self, at: c), w4, acc)
    acc = multiplyAdd(r1.load(V.self, at: c1 + c), w5, acc)
    acc = multiplyAdd(r2.load(V.self, at: c), w7, acc)
    acc = multiplyAdd(r2.load(V.self, at: c1 + c), w8, acc)
    o.store(V.minimum(V.maximum(acc + bv, lower), upper), at: 0)
    o += c1
  }
  var x0 = r0 + span.firstOrigin * c1 + c
  var x1 = r1 + span.firstOrigin * c1 + c
  var x2 = r2 + span.firstOrigin * c1 + c
  for _ in 0..<span.insideCount {
    var acc = multiplyAdd(x0.load(V.self, at: 0), w0, V())
    acc = multiplyAdd(x0.load(V.self, at: c1), w1, acc)
    acc = multiplyAdd(x0.load(V.self, at: c2), w2, acc)
    acc = multiplyAdd(x1.load(V.self, at: 0), w3, acc)
    acc = multiplyAdd(x1.load(V.self, at: c1), w4, acc)
    acc = multiplyAdd(x1.load(V.self, at: c2), w5, acc)
    acc = multiplyAdd(x2.load(V.self, at: 0), w6, acc)
    acc = multiplyAdd(x2.load(V.self, at: c1), w7, acc)
    acc = multiplyAdd(x2.load(V.self, at: c2), w8, acc)
    o.store(V.minimum(V.maximum(acc + bv, lower), upper), at: 0)
    x0 += step
    x1 += step
    x2 += step
    o += c1
  }
  if span.rightEdge {
    // x0, x1, x2 now point at this window's start; its fx = 2 taps are padding.
    var acc = multiplyAdd(x0.load(V.self, at: 0), w0, V())
    acc = multiplyAdd(x0.load(V.self, at: c1), w1, acc)
    acc = multiplyAdd(x1.load(V.self, at: 0), w3, acc)
    acc = multiplyAdd(x1.load(V.self, at: c1), w4, acc)
    acc = multiplyAdd(x2.load(V.self, at: 0), w6, acc)
    acc = multiplyAdd(x2.load(V.self, at: c1), w7, acc)
    o.store(V.minimum(V.maximum(acc + bv, lower), upper), at: 0)
  }
  if let slopes = layer.slopes {
    let slope = slopes.load(V.self, at: c)
    var o = out + span.start * c1 + c
    for _ in 0..<(span.insideCount + (span.leftEdge ? 1 : 0) + (span.rightEdge ? 1 : 0)) {
      o.store(V.prelu(o.load(V.self, at: 0), slope), at: 0)
      o += c1
    }
  }
}

/// A run of output columns of one row.
struct Span {
  /// The first output column.
  var start: Int
  /// Whether it starts with the left edge pixel.
  var leftEdge: Bool
  /// Windows wholly inside the image, after the left edge pixel if any.
  var insideCount: Int
  /// Input column where the first of those windows starts.
  var firstOrigin: Int
  /// Whether it ends with the right edge pixel.
  var rightEdge: Bool

  /// Output columns `start..<end` of a row: which edge pixels they include and where
  /// their inside windows start.
  init(_ layer: VisageDepthwise3x3, _ start: Int, _ end: Int) {
    let first = max(start, layer.firstInside)
    self.start = start
    leftEdge = layer.leftEdge != 0 && start == 0
    insideCount = max(0, min(end, layer.endInside) - first)
    firstOrigin = first * layer.strideWidth - layer.padLeft
    rightEdge = layer.rightEdge != 0 && end == layer.outputWidth
  }
}
