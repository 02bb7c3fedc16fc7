extension FixedPointWarp {
  /// `optimized`, one pixel at a time as the description above reads: the twin the
  /// optimized warp is tested against.
  public static func reference(
    _ source: Source, map m: PerspectiveMap, outputWidth: Int, outputHeight: Int, border: BorderMode,
    levels: LevelMap, into output: UnsafeMutablePointer<Float>
  ) {
    let width = source.width
    let height = source.height
    let src = source.pixels
    let blockWidth = Self.blockWidth(outputWidth: outputWidth, outputHeight: outputHeight)
    let table = levels.table
    let zeroValue = table[0]
    table.withUnsafeBufferPointer { lut in
      for v in 0..<outputHeight {
        var blockStart = 0
        while blockStart < outputWidth {
          let x0 = m.m0 * Double(blockStart) + m.m1 * Double(v) + m.m2
          let y0 = m.m3 * Double(blockStart) + m.m4 * Double(v) + m.m5
          let w0 = m.m6 * Double(blockStart) + m.m7 * Double(v) + m.m8
          for u in blockStart..<min(blockStart + blockWidth, outputWidth) {
            let x1 = Double(u - blockStart)
            let w = w0 + m.m6 * x1
            let perW = w != 0 ? 32 / w : 0
            let fx = clampToInt32((x0 + m.m0 * x1) * perW)
            let fy = clampToInt32((y0 + m.m3 * x1) * perW)
            let ix = Int(fx.rounded(.toNearestOrEven))
            let iy = Int(fy.rounded(.toNearestOrEven))
            let sx = min(max(ix >> 5, Int(Int16.min)), Int(Int16.max))
            let ax = ix & 31
            let sy = min(max(iy >> 5, Int(Int16.min)), Int(Int16.max))
            let ay = iy & 31
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
              out[0] = zeroValue
              out[1] = zeroValue
              out[2] = zeroValue
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
