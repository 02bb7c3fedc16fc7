/// How a warp fills output pixels whose source lies outside the image.
enum BorderMode: Sendable {
  /// Taps outside read black, and a pixel entirely outside is black (`cv::BORDER_CONSTANT`
  /// with 0): the detector's letterbox.
  case zero
  /// Taps are clamped to the nearest edge pixel (`cv::BORDER_REPLICATE`): the landmark
  /// model's crop.
  case replicate
}

/// Cuts a turned rectangle out of an 8-bit RGB image into a model's float input, the way
/// MediaPipe's CPU `ImageToTensorConverter` does with OpenCV's `warpPerspective`.
///
/// The numerics are OpenCV's fixed-point bilinear path, not an idealised resampler, because
/// that is what reproduces MediaPipe's tensors exactly:
/// - destination pixel (u, v) samples the source through `PerspectiveMap`, the inverse of the
///   map from the rect's corners to the output's corners: in exact arithmetic corner +
///   u·(roi width / output width) along the rect's x axis (corner-aligned, no half-pixel
///   offset), in practice with that map's rounding and a division by its third row;
/// - source coordinates are rounded (half to even) to 1/32 pixel, and their whole-pixel part
///   saturates to 16 bits (OpenCV keeps it in a `short`);
/// - the four taps get integer weights summing to 32768, and the sum is rounded half up
///   back to 8 bits;
/// - the 8-bit result becomes a float through the value range (`LevelMap`).
///
/// See the pipeline reference §1.3.4–1.3.5.
enum FixedPointWarp {
  /// OpenCV processes a destination row in blocks; the block start anchors the double
  /// arithmetic of the inverse map, so we keep the same blocking (`BLOCK_SZ` 32).
  static func blockWidth(outputWidth: Int, outputHeight: Int) -> Int {
    let bh = min(16, outputHeight)
    return min(1024 / bh, outputWidth)
  }

  /// Warps `roi` of `image` into `output` (outputHeight × outputWidth × 3 floats, NHWC).
  ///
  /// Eight destination pixels at a time: their source coordinates in `SIMD8<Double>` with
  /// the same operations as `reference` (so the same roundings). A pixel whose four taps
  /// are inside the image is blended with its three channels in one `SIMD4<Int32>` (each
  /// tap read as four bytes, the fourth ignored) and stored as four floats, the fourth
  /// overwritten by the next pixel; pixels at an edge, and the few where that would read or
  /// write past the end, take the reference's per-pixel rule. Same output as `reference`,
  /// bit for bit (`WarpTests`).
  static func warp(
    _ image: VisionImage, roi: RotatedRect, outputWidth: Int, outputHeight: Int,
    border: BorderMode, levels: LevelMap, into output: UnsafeMutablePointer<Float>
  ) {
    let m = PerspectiveMap(roi: roi, outputWidth: outputWidth, outputHeight: outputHeight)
    let width = image.width, height = image.height
    let rowBytes = width &* 3
    let blockWidth = blockWidth(outputWidth: outputWidth, outputHeight: outputHeight)
    let lanes = SIMD8<Double>(0, 1, 2, 3, 4, 5, 6, 7)
    let (lastX, lastY) = (SIMD8<Int32>(repeating: Int32(width - 1)), SIMD8<Int32>(repeating: Int32(height - 1)))
    let (scale, offset) = (SIMD4<Float>(repeating: levels.scale), SIMD4<Float>(repeating: levels.offset))
    // The one tap whose fourth byte would lie past the image, and the last output value.
    let lastTap = (width - 2, height - 2)
    let lastPixel = output + (outputWidth * outputHeight - 1) * 3
    image.pixels.withUnsafeBufferPointer { pixels in
      let src = pixels.baseAddress!
      for v in 0..<outputHeight {
        var blockStart = 0
        while blockStart < outputWidth {
          let x0 = m.m0 * Double(blockStart) + m.m1 * Double(v) + m.m2
          let y0 = m.m3 * Double(blockStart) + m.m4 * Double(v) + m.m5
          let w0 = m.m6 * Double(blockStart) + m.m7 * Double(v) + m.m8
          let blockEnd = min(blockStart + blockWidth, outputWidth)
          var u = blockStart
          while u < blockEnd {
            let x1 = lanes + SIMD8(repeating: Double(u - blockStart))
            let w = SIMD8(repeating: w0) + SIMD8(repeating: m.m6) * x1
            let perW = (SIMD8(repeating: 32) / w).replacing(with: 0, where: w .== 0)
            let ix = fixedPoint((SIMD8(repeating: x0) + SIMD8(repeating: m.m0) * x1) * perW)
            let iy = fixedPoint((SIMD8(repeating: y0) + SIMD8(repeating: m.m3) * x1) * perW)
            let sx = wholePixels(ix), ax = ix & 31
            let sy = wholePixels(iy), ay = iy & 31
            let bx = 32 &- ax, by = 32 &- ay
            let w00 = bx &* by &* 32, w10 = ax &* by &* 32
            let w01 = bx &* ay &* 32, w11 = ax &* ay &* 32
            let inside = (sx .>= 0) .& (sy .>= 0) .& (sx .< lastX) .& (sy .< lastY)
            var out = output + (v &* outputWidth &+ u) &* 3
            for lane in 0..<min(8, blockEnd - u) {
              let (x, y) = (Int(sx[lane]), Int(sy[lane]))
              if inside[lane] && out != lastPixel && (x, y) != lastTap {
                let i00 = src + (y &* width &+ x) &* 3
                let i01 = i00 + rowBytes
                var sum = taps(i00) &* w00[lane]
                sum &+= taps(i00 + 3) &* w10[lane]
                sum &+= taps(i01) &* w01[lane]
                sum &+= taps(i01 + 3) &* w11[lane]
                let level = (sum &+ 16384) &>> 15
                UnsafeMutableRawPointer(out).storeBytes(of: SIMD4<Float>(level) * scale + offset, as: SIMD4<Float>.self)
              } else {
                edgePixel(src, width, height, x, y, (w00[lane], w10[lane], w01[lane], w11[lane]), border, levels, out)
              }
              out += 3
            }
            u += 8
          }
          blockStart += blockWidth
        }
      }
    }
  }

  /// The whole-pixel part of fixed-point coordinates, saturated to 16 bits as OpenCV stores it.
  @inline(__always)
  private static func wholePixels(_ fixed: SIMD8<Int32>) -> SIMD8<Int32> {
    (fixed &>> 5).clamped(lowerBound: SIMD8(repeating: Int32(Int16.min)), upperBound: SIMD8(repeating: Int32(Int16.max)))
  }

  /// The three channels of the pixel at `p` (and the next byte, unused) as integers.
  @inline(__always)
  private static func taps(_ p: UnsafePointer<UInt8>) -> SIMD4<Int32> {
    SIMD4<Int32>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt8>.self))
  }

  /// OpenCV's rounding of a scaled source coordinate to fixed point, on eight lanes: NaN to
  /// the int32 minimum, clamped to the int32 range, then rounded half to even (adding and
  /// taking 1.5·2^52 rounds in the default mode, and leaves the integer in the low bits).
  @inline(__always)
  private static func fixedPoint(_ value: SIMD8<Double>) -> SIMD8<Int32> {
    let (low, high) = (SIMD8<Double>(repeating: Double(Int32.min)), SIMD8<Double>(repeating: Double(Int32.max)))
    var v = value.replacing(with: high, where: value .> high)
    v = v.replacing(with: low, where: v .< low)
    v = v.replacing(with: low, where: value .!= value)
    let bits = unsafeBitCast(v + SIMD8(repeating: 6_755_399_441_055_744), to: SIMD8<UInt64>.self)
    return SIMD8<Int32>(truncatingIfNeeded: bits)
  }

  /// A pixel with a tap outside the image: black when entirely outside with a zero border,
  /// otherwise the outside taps clamped (replicate) or black (zero), as in `reference`.
  private static func edgePixel(
    _ src: UnsafePointer<UInt8>, _ width: Int, _ height: Int, _ sx: Int, _ sy: Int,
    _ w: (Int32, Int32, Int32, Int32), _ border: BorderMode, _ levels: LevelMap,
    _ out: UnsafeMutablePointer<Float>
  ) {
    if border == .zero && (sx >= width || sx + 1 < 0 || sy >= height || sy + 1 < 0) {
      let black = levels(0)
      out[0] = black; out[1] = black; out[2] = black
      return
    }
    let xs = (tap(sx, width, border), tap(sx + 1, width, border))
    let ys = (tap(sy, height, border), tap(sy + 1, height, border))
    for c in 0..<3 {
      func pixel(_ x: Int, _ y: Int) -> Int {
        x < 0 || y < 0 ? 0 : Int(src[(y * width + x) * 3 + c])
      }
      let sum =
        Int(w.0) * pixel(xs.0, ys.0) + Int(w.1) * pixel(xs.1, ys.0) + Int(w.2) * pixel(xs.0, ys.1)
        + Int(w.3) * pixel(xs.1, ys.1)
      out[c] = levels(min(255, (sum + 16384) >> 15))
    }
  }

  /// A tap coordinate after the border rule, or −1 for a black tap.
  @inline(__always)
  static func tap(_ i: Int, _ size: Int, _ border: BorderMode) -> Int {
    if i >= 0 && i < size { return i }
    return border == .replicate ? min(max(i, 0), size - 1) : -1
  }

  /// OpenCV's clamp of a scaled source coordinate into the int32 range; NaN (only from a
  /// degenerate rect) goes to the far left, outside any image.
  @inline(__always)
  static func clampToInt32(_ value: Double) -> Double {
    value.isNaN ? Double(Int32.min) : min(max(value, Double(Int32.min)), Double(Int32.max))
  }
}

/// The float each 8-bit level becomes for a model whose input range is `range`: level ·
/// scale + offset with scale = (max − min)/255 in float, as `GetValueRangeTransformation`
/// and `convertTo` compute it.
struct LevelMap: Sendable {
  let scale: Float
  let offset: Float

  init(range: ClosedRange<Float>) {
    scale = (range.upperBound - range.lowerBound) / 255
    offset = range.lowerBound - 0 * scale
  }

  /// The value of `level` (0...255).
  @inline(__always)
  func callAsFunction(_ level: Int) -> Float { Float(level) * scale + offset }

  /// All 256 values, for the reference's lookups.
  var table: [Float] { (0..<256).map { self($0) } }
}
