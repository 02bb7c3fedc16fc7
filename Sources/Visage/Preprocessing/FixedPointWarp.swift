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
/// - destination pixel (u, v) samples the source at corner + u·(roi width / output width)
///   along the rect's x axis (corner-aligned, no half-pixel offset);
/// - source coordinates are rounded (half to even) to 1/32 pixel;
/// - the four taps get integer weights summing to 32768, and the sum is rounded half up
///   back to 8 bits;
/// - the 8-bit result becomes a float through the value-range table.
///
/// See the pipeline reference §1.3.4–1.3.5.
enum FixedPointWarp {
  /// OpenCV processes a destination row in blocks; the block start anchors the double
  /// arithmetic of the inverse map, so we keep the same blocking (`BLOCK_SZ` 32).
  private static func blockWidth(outputWidth: Int, outputHeight: Int) -> Int {
    let bh = min(16, outputHeight)
    return min(1024 / bh, outputWidth)
  }

  /// Warps `roi` of `image` into `output` (outputHeight × outputWidth × 3 floats, NHWC).
  ///
  /// - Parameter table: 256 floats, the value each 8-bit level becomes.
  static func warp(
    _ image: VisionImage, roi: RotatedRect, outputWidth: Int, outputHeight: Int,
    border: BorderMode, table: [Float], into output: UnsafeMutablePointer<Float>
  ) {
    // Inverse map, destination pixel → source pixel, from the rect's corners: the top-left
    // corner (point 1) is the origin, point 2 ends the x axis and point 0 the y axis.
    let p = roi.boxPoints()
    let m0 = (Double(p[2].x) - Double(p[1].x)) / Double(outputWidth)
    let m1 = (Double(p[0].x) - Double(p[1].x)) / Double(outputHeight)
    let m2 = Double(p[1].x)
    let m3 = (Double(p[2].y) - Double(p[1].y)) / Double(outputWidth)
    let m4 = (Double(p[0].y) - Double(p[1].y)) / Double(outputHeight)
    let m5 = Double(p[1].y)

    let width = image.width, height = image.height
    let blockWidth = blockWidth(outputWidth: outputWidth, outputHeight: outputHeight)
    let zeroValue = table[0]
    image.pixels.withUnsafeBufferPointer { src in
      table.withUnsafeBufferPointer { lut in
        for v in 0..<outputHeight {
          var blockStart = 0
          while blockStart < outputWidth {
            let x0 = m0 * Double(blockStart) + m1 * Double(v) + m2
            let y0 = m3 * Double(blockStart) + m4 * Double(v) + m5
            for u in blockStart..<min(blockStart + blockWidth, outputWidth) {
              let x1 = Double(u - blockStart)
              let fx = clampToInt32((x0 + m0 * x1) * 32)
              let fy = clampToInt32((y0 + m3 * x1) * 32)
              let ix = Int(fx.rounded(.toNearestOrEven))
              let iy = Int(fy.rounded(.toNearestOrEven))
              let sx = ix >> 5, ax = ix & 31
              let sy = iy >> 5, ay = iy & 31
              let w00 = (32 - ax) * (32 - ay) * 32
              let w10 = ax * (32 - ay) * 32
              let w01 = (32 - ax) * ay * 32
              let w11 = ax * ay * 32
              let out = output + (v * outputWidth + u) * 3
              if sx >= 0, sy >= 0, sx < width - 1, sy < height - 1 {
                let i00 = (sy * width + sx) * 3
                let i01 = i00 + width * 3
                for c in 0..<3 {
                  let sum =
                    w00 * Int(src[i00 + c]) + w10 * Int(src[i00 + 3 + c])
                    + w01 * Int(src[i01 + c]) + w11 * Int(src[i01 + 3 + c])
                  out[c] = lut[(sum + 16384) >> 15]
                }
                continue
              }
              if border == .zero && (sx >= width || sx + 1 < 0 || sy >= height || sy + 1 < 0) {
                out[0] = zeroValue; out[1] = zeroValue; out[2] = zeroValue
                continue
              }
              // At least one tap is outside: clamp it (replicate) or read black (zero).
              let xs = (tap(sx, width, border), tap(sx + 1, width, border))
              let ys = (tap(sy, height, border), tap(sy + 1, height, border))
              for c in 0..<3 {
                func pixel(_ x: Int, _ y: Int) -> Int {
                  x < 0 || y < 0 ? 0 : Int(src[(y * width + x) * 3 + c])
                }
                let sum =
                  w00 * pixel(xs.0, ys.0) + w10 * pixel(xs.1, ys.0)
                  + w01 * pixel(xs.0, ys.1) + w11 * pixel(xs.1, ys.1)
                out[c] = lut[min(255, (sum + 16384) >> 15)]
              }
            }
            blockStart += blockWidth
          }
        }
      }
    }
  }

  /// A tap coordinate after the border rule, or −1 for a black tap.
  @inline(__always)
  private static func tap(_ i: Int, _ size: Int, _ border: BorderMode) -> Int {
    if i >= 0 && i < size { return i }
    return border == .replicate ? min(max(i, 0), size - 1) : -1
  }

  /// OpenCV's clamp of a scaled source coordinate into the int32 range; NaN (only from a
  /// degenerate rect) goes to the far left, outside any image.
  @inline(__always)
  private static func clampToInt32(_ value: Double) -> Double {
    value.isNaN ? Double(Int32.min) : min(max(value, Double(Int32.min)), Double(Int32.max))
  }

  /// The 256 float values that 8-bit levels become for a model whose input range is
  /// `range`: level · scale + offset with scale = (max − min)/255 in float, as
  /// `GetValueRangeTransformation` and `convertTo` compute it.
  static func valueTable(range: ClosedRange<Float>) -> [Float] {
    let scale = (range.upperBound - range.lowerBound) / 255
    let offset = range.lowerBound - 0 * scale
    return (0..<256).map { Float($0) * scale + offset }
  }
}
