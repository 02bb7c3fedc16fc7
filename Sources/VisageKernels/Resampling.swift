/// Bilinear resizing of NHWC images, as TFLite's RESIZE_BILINEAR.
public enum Resampling {
  /// Where output coordinates land in the input.
  public struct Options: Hashable, Sendable {
    /// Map corner pixel centres onto corner pixel centres.
    public var alignCorners: Bool
    /// Sample at pixel centres (x + 0.5) rather than pixel corners.
    public var halfPixelCenters: Bool

    /// Creates resize options; both false is TFLite's default.
    public init(alignCorners: Bool = false, halfPixelCenters: Bool = false) {
      self.alignCorners = alignCorners
      self.halfPixelCenters = halfPixelCenters
    }
  }

  /// TFLite's reference bilinear resize (reference_ops::ResizeBilinear), including its
  /// clamping of the lower source index at 0 and the upper at size - 1.
  public static func reference(
    input: UnsafePointer<Float>, _ inputShape: NHWC, options: Options,
    output: UnsafeMutablePointer<Float>, _ outputShape: NHWC
  ) {
    let heightScale = scale(inputShape.height, outputShape.height, options)
    let widthScale = scale(inputShape.width, outputShape.width, options)
    for b in 0..<inputShape.batch {
      for y in 0..<outputShape.height {
        let (inputY, y0, y1) = source(y, heightScale, options, inputShape.height)
        for x in 0..<outputShape.width {
          let (inputX, x0, x1) = source(x, widthScale, options, inputShape.width)
          let dy = inputY - Float(y0)
          let dx = inputX - Float(x0)
          for c in 0..<inputShape.channels {
            let interpolated =
              input[inputShape.offset(b, y0, x0, c)] * (1 - dy) * (1 - dx)
              + input[inputShape.offset(b, y1, x0, c)] * dy * (1 - dx)
              + input[inputShape.offset(b, y0, x1, c)] * (1 - dy) * dx
              + input[inputShape.offset(b, y1, x1, c)] * dy * dx
            output[outputShape.offset(b, y, x, c)] = interpolated
          }
        }
      }
    }
  }

  /// The reference's bilinear resize with the same arithmetic, vectorized along the
  /// channels: each output column's source columns and weight are worked out once per call
  /// instead of once per row and channel. `rows`, if given, limits the work to those output
  /// rows (counted over batch × height), so threads can share a layer.
  public static func optimized(
    input: UnsafePointer<Float>, _ inputShape: NHWC, options: Options,
    output: UnsafeMutablePointer<Float>, _ outputShape: NHWC, rows: Range<Int>? = nil
  ) {
    let heightScale = scale(inputShape.height, outputShape.height, options)
    let widthScale = scale(inputShape.width, outputShape.width, options)
    let channels = inputShape.channels
    withUnsafeTemporaryAllocation(of: (Int, Int, Float).self, capacity: outputShape.width) { columns in
      for x in 0..<outputShape.width {
        let (inputX, x0, x1) = source(x, widthScale, options, inputShape.width)
        columns[x] = (x0 * channels, x1 * channels, inputX - Float(x0))
      }
      let rows = rows ?? 0..<(outputShape.batch * outputShape.height)
      var out = output + rows.lowerBound * outputShape.width * channels
      for row in rows {
        let (b, y) = row.quotientAndRemainder(dividingBy: outputShape.height)
        let (inputY, y0, y1) = source(y, heightScale, options, inputShape.height)
        let dy = inputY - Float(y0)
        let row0 = input + inputShape.offset(b, y0, 0, 0)
        let row1 = input + inputShape.offset(b, y1, 0, 0)
        for (x0, x1, dx) in columns {
          blend(row0 + x0, row1 + x0, row0 + x1, row1 + x1, out, channels, dy, dx)
          out += channels
        }
      }
    }
  }

  /// One output pixel from its four source pixels: the reference's expression, term by term
  /// and in its order, so the sums match it to the bit.
  @inline(__always)
  private static func blend(
    _ x00: UnsafePointer<Float>, _ x10: UnsafePointer<Float>, _ x01: UnsafePointer<Float>,
    _ x11: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, _ channels: Int,
    _ dy: Float, _ dx: Float
  ) {
    var c = 0
    while c + 16 <= channels {
      let (a, b) = (SIMD16<Float>(repeating: 1 - dy), SIMD16<Float>(repeating: dy))
      let (p, q) = (SIMD16<Float>(repeating: 1 - dx), SIMD16<Float>(repeating: dx))
      // Term by term, for Swift 6.2's type checker, which gives up on the one expression; the
      // sum keeps the reference's left-to-right order.
      let t00: SIMD16<Float> = x00.load(SIMD16<Float>.self, at: c) * a * p
      let t10: SIMD16<Float> = x10.load(SIMD16<Float>.self, at: c) * b * p
      let t01: SIMD16<Float> = x01.load(SIMD16<Float>.self, at: c) * a * q
      let t11: SIMD16<Float> = x11.load(SIMD16<Float>.self, at: c) * b * q
      let v = t00 + t10 + t01 + t11
      out.store(v, at: c)
      c += 16
    }
    while c < channels {
      out[c] = x00[c] * (1 - dy) * (1 - dx) + x10[c] * dy * (1 - dx) + x01[c] * (1 - dy) * dx + x11[c] * dy * dx
      c += 1
    }
  }

  private static func scale(_ inputSize: Int, _ outputSize: Int, _ options: Options) -> Float {
    if options.alignCorners && outputSize > 1 {
      return Float(inputSize - 1) / Float(outputSize - 1)
    }
    return Float(inputSize) / Float(outputSize)
  }

  /// TFLite's `ComputeInterpolationValues`: the unclamped source coordinate and the two
  /// clamped source indices around it.
  private static func source(
    _ value: Int, _ scale: Float, _ options: Options, _ inputSize: Int
  ) -> (Float, Int, Int) {
    let scaled =
      options.halfPixelCenters ? (Float(value) + 0.5) * scale - 0.5 : Float(value) * scale
    // TFLite clamps only below; the upper clamp keeps option pairs TFLite refuses in bounds.
    let lower = min(max(Int(scaled.rounded(.down)), 0), inputSize - 1)
    let upper = min(Int(scaled.rounded(.up)), inputSize - 1)
    return (scaled, lower, upper)
  }
}
