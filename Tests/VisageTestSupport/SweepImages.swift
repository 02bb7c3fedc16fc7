/// Test images of any size, made the same way as Tools/make_sweep_fixtures.py makes them, so
/// the parity sweep can rebuild thousands of megapixels from three committed photos.
///
/// Integer arithmetic only, so both sides produce the same bytes: the script records the
/// CRC-32 of every image and the tests check it before comparing anything.
public enum SweepImages {
  /// `rgb` (`width` × `height`, RGB rows) resized to `newWidth` × `newHeight` bilinearly:
  /// output centre (x + ½)·W/W′ − ½ in the source, its fraction rounded to 1/256, the taps
  /// clamped to the image, the value rounded half up from 16 fractional bits.
  public static func resize(_ rgb: [UInt8], width: Int, height: Int, to newWidth: Int, _ newHeight: Int) -> [UInt8] {
    let xs = taps(width, newWidth)
    let ys = taps(height, newHeight)
    var out = [UInt8](repeating: 0, count: newWidth * newHeight * 3)
    rgb.withUnsafeBufferPointer { src in
      out.withUnsafeMutableBufferPointer { dst in
        for y in 0..<newHeight {
          let (r0, r1, fy) = ys[y]
          let top = r0 * width * 3
          let bottom = r1 * width * 3
          for x in 0..<newWidth {
            let (c0, c1, fx) = xs[x]
            for c in 0..<3 {
              func p(_ row: Int, _ column: Int) -> Int { Int(src[row + column * 3 + c]) }
              let t = (256 - fx) * p(top, c0) + fx * p(top, c1)
              let b = (256 - fx) * p(bottom, c0) + fx * p(bottom, c1)
              dst[(y * newWidth + x) * 3 + c] = UInt8(((256 - fy) * t + fy * b + 32768) >> 16)
            }
          }
        }
      }
    }
    return out
  }

  /// For each output index: the two source taps and the second one's weight in 1/256.
  private static func taps(_ input: Int, _ output: Int) -> [(Int, Int, Int)] {
    (0..<output).map { o in
      let numerator = (2 * o + 1) * input - output
      let denominator = 2 * output
      var i0 = numerator >= 0 ? numerator / denominator : -((-numerator + denominator - 1) / denominator)
      var f = ((numerator - i0 * denominator) * 256 + output) / denominator
      if i0 < 0 || i0 >= input - 1 {
        i0 = min(max(i0, 0), input - 1)
        f = 0
      }
      return (i0, min(i0 + 1, input - 1), f)
    }
  }

  /// `rgb` turned by `quarterTurns` quarter turns counter-clockwise (numpy's `rot90`;
  /// negative is clockwise), with its new width and height.
  public static func rotate(_ rgb: [UInt8], width: Int, height: Int, quarterTurns: Int) -> (
    rgb: [UInt8], width: Int, height: Int
  ) {
    let k = ((quarterTurns % 4) + 4) % 4
    if k == 0 { return (rgb, width, height) }
    let (w, h) = k == 2 ? (width, height) : (height, width)
    var out = [UInt8](repeating: 0, count: rgb.count)
    for y in 0..<h {
      for x in 0..<w {
        // The source pixel that lands at (x, y).
        let (sx, sy) =
          switch k {
          case 1: (width - 1 - y, x)
          case 2: (width - 1 - x, height - 1 - y)
          default: (y, height - 1 - x)
          }
        for c in 0..<3 { out[(y * w + x) * 3 + c] = rgb[(sy * width + sx) * 3 + c] }
      }
    }
    return (out, w, h)
  }

  /// CRC-32 as zlib computes it (reflected polynomial 0xEDB88320), a byte a step.
  public static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    return crc ^ 0xFFFF_FFFF
  }

  private static let table: [UInt32] = (0..<256).map { n in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }
}
