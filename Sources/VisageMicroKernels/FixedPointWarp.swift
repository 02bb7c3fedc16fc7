import CVisageISA

/// The fixed-point warp's entry point in this copy of the micro-kernels: OpenCV's
/// `warpPerspective` bilinear path from an 8-bit RGB image into a model's float input. What
/// each step reproduces, and why, is in VisageKernels' FixedPointWarp.swift; this is
/// its loop.
///
/// Eight destination pixels at a time: their source coordinates in `SIMD8<Double>` with
/// the same operations as the reference (so the same roundings: Swift does not contract a
/// multiply and an add, so every instruction set gives the same bits). A pixel whose four
/// taps are inside the image is blended with its three channels in one `SIMD4<Int32>` (each
/// tap read as four bytes, the fourth ignored) and stored as four floats, the fourth
/// overwritten by the next pixel; pixels at an edge, and the few where that would read or
/// write past the end, take the reference's per-pixel rule.
public func fixedPointWarp(_ warp: VisageFixedPointWarp, _ output: UnsafeMutablePointer<Float>) {
  // Each block of eight pixels' per-lane values (see `Lanes`) go to the stack once, and the
  // pixel loop reads them as scalars: indexing the vectors by lane there made LLVM store
  // every vector to the stack again for each pixel (seven 32-byte stores per pixel).
  withUnsafeTemporaryAllocation(byteCount: Lanes.byteCount, alignment: 32) { scratch in
    warpRows(warp, output, Lanes(scratch.baseAddress!))
  }
}

/// One block's per-lane values on the stack: source x and y, the four tap weights, and
/// whether the pixel takes the fast path.
private struct Lanes {
  static let byteCount = 7 * 32
  let base: UnsafeMutableRawPointer

  init(_ base: UnsafeMutableRawPointer) { self.base = base }

  @inline(__always)
  func store(_ v: SIMD8<Int32>, _ row: Int) { base.storeBytes(of: v, toByteOffset: row * 32, as: SIMD8<Int32>.self) }

  @inline(__always)
  subscript(row: Int, lane: Int) -> Int32 { base.load(fromByteOffset: row * 32 + lane * 4, as: Int32.self) }
}

@inline(__always)
private func warpRows(_ warp: VisageFixedPointWarp, _ output: UnsafeMutablePointer<Float>, _ lanes: Lanes) {
  let m = warp.map
  let (width, height) = (warp.width, warp.height)
  let (outputWidth, outputHeight) = (warp.outputWidth, warp.outputHeight)
  let (src, rowBytes, blockWidth) = (warp.pixels, width &* 3, warp.blockWidth)
  let indices = SIMD8<Double>(0, 1, 2, 3, 4, 5, 6, 7)
  let (lastX, lastY) = (SIMD8<Int32>(repeating: Int32(width - 1)), SIMD8<Int32>(repeating: Int32(height - 1)))
  let zero = SIMD8<Int32>()
  let (scale, offset) = (SIMD4<Float>(repeating: warp.scale), SIMD4<Float>(repeating: warp.offset))
  // The one tap whose fourth byte would lie past the image, and the last output value.
  let lastTap = (SIMD8<Int32>(repeating: Int32(width - 2)), SIMD8<Int32>(repeating: Int32(height - 2)))
  let lastPixel = output + (outputWidth * outputHeight - 1) * 3
  for v in 0..<outputHeight {
    var blockStart = 0
    while blockStart < outputWidth {
      let x0 = m.0 * Double(blockStart) + m.1 * Double(v) + m.2
      let y0 = m.3 * Double(blockStart) + m.4 * Double(v) + m.5
      let w0 = m.6 * Double(blockStart) + m.7 * Double(v) + m.8
      let blockEnd = min(blockStart + blockWidth, outputWidth)
      var u = blockStart
      while u < blockEnd {
        let x1 = indices + SIMD8(repeating: Double(u - blockStart))
        let w = SIMD8(repeating: w0) + SIMD8(repeating: m.6) * x1
        let perW = (SIMD8(repeating: 32) / w).replacing(with: 0, where: w .== SIMD8<Double>())
        let ix = fixedPoint((SIMD8(repeating: x0) + SIMD8(repeating: m.0) * x1) * perW)
        let iy = fixedPoint((SIMD8(repeating: y0) + SIMD8(repeating: m.3) * x1) * perW)
        let sx = wholePixels(ix)
        let ax = ix & 31
        let sy = wholePixels(iy)
        let ay = iy & 31
        let bx = 32 &- ax
        let by = 32 &- ay
        lanes.store(sx, 0)
        lanes.store(sy, 1)
        lanes.store(bx &* by &* 32, 2)
        lanes.store(ax &* by &* 32, 3)
        lanes.store(bx &* ay &* 32, 4)
        lanes.store(ax &* ay &* 32, 5)
        // Vector-to-vector comparisons: against a scalar (`sx .>= 0`) the standard library's
        // generic default built the mask one lane at a time through memory, over half of
        // this function's time.
        let inside = (sx .>= zero) .& (sy .>= zero) .& (sx .< lastX) .& (sy .< lastY)
        let fast = inside .& ((sx .!= lastTap.0) .| (sy .!= lastTap.1))
        lanes.store(zero.replacing(with: -1, where: fast), 6)
        var out = output + (v &* outputWidth &+ u) &* 3
        for lane in 0..<min(8, blockEnd - u) {
          let (x, y) = (Int(lanes[0, lane]), Int(lanes[1, lane]))
          if lanes[6, lane] != 0 && out != lastPixel {
            let i00 = src + (y &* width &+ x) &* 3
            let i01 = i00 + rowBytes
            var sum = taps(i00) &* lanes[2, lane]
            sum &+= taps(i00 + 3) &* lanes[3, lane]
            sum &+= taps(i01) &* lanes[4, lane]
            sum &+= taps(i01 + 3) &* lanes[5, lane]
            let level = (sum &+ 16384) &>> 15
            UnsafeMutableRawPointer(out).storeBytes(of: SIMD4<Float>(level) * scale + offset, as: SIMD4<Float>.self)
          } else {
            edgePixel(warp, x, y, (lanes[2, lane], lanes[3, lane], lanes[4, lane], lanes[5, lane]), out)
          }
          out += 3
        }
        u += 8
      }
      blockStart += blockWidth
    }
  }
}

/// The whole-pixel part of fixed-point coordinates, saturated to 16 bits as OpenCV stores
/// it. Spelled as selects: the standard library's generic `clamped` would be specialized
/// here, and a specialization in each copy is the shared weak code the copies must not have.
@inline(__always)
private func wholePixels(_ fixed: SIMD8<Int32>) -> SIMD8<Int32> {
  let whole = fixed &>> 5
  let (low, high) = (SIMD8<Int32>(repeating: Int32(Int16.min)), SIMD8<Int32>(repeating: Int32(Int16.max)))
  return whole.replacing(with: low, where: whole .< low).replacing(with: high, where: whole .> high)
}

/// The three channels of the pixel at `p` (and the next byte, unused) as integers.
@inline(__always)
private func taps(_ p: UnsafePointer<UInt8>) -> SIMD4<Int32> {
  SIMD4<Int32>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt8>.self))
}

/// OpenCV's rounding of a scaled source coordinate to fixed point, on eight lanes: NaN to
/// the int32 minimum, clamped to the int32 range, then rounded half to even (adding and
/// taking 1.5·2^52 rounds in the default mode, and leaves the integer in the low bits).
@inline(__always)
private func fixedPoint(_ value: SIMD8<Double>) -> SIMD8<Int32> {
  let (low, high) = (SIMD8<Double>(repeating: Double(Int32.min)), SIMD8<Double>(repeating: Double(Int32.max)))
  var v = value.replacing(with: high, where: value .> high)
  v = v.replacing(with: low, where: v .< low)
  v = v.replacing(with: low, where: value .!= value)
  let bits = unsafeBitCast(v + SIMD8(repeating: 6_755_399_441_055_744), to: SIMD8<UInt64>.self)
  return SIMD8<Int32>(truncatingIfNeeded: bits)
}

/// A pixel with a tap outside the image: black when entirely outside with a zero border,
/// otherwise the outside taps clamped (replicate) or black (zero), as in the reference.
private func edgePixel(
  _ warp: VisageFixedPointWarp, _ sx: Int, _ sy: Int, _ w: (Int32, Int32, Int32, Int32),
  _ out: UnsafeMutablePointer<Float>
) {
  let (width, height, replicate) = (warp.width, warp.height, warp.replicateBorder != 0)
  func level(_ value: Int) -> Float { Float(value) * warp.scale + warp.offset }
  if !replicate && (sx >= width || sx + 1 < 0 || sy >= height || sy + 1 < 0) {
    let black = level(0)
    out[0] = black
    out[1] = black
    out[2] = black
    return
  }
  /// A tap coordinate after the border rule, or −1 for a black tap.
  func tap(_ i: Int, _ size: Int) -> Int {
    if i >= 0 && i < size { return i }
    return replicate ? min(max(i, 0), size - 1) : -1
  }
  let xs = (tap(sx, width), tap(sx + 1, width))
  let ys = (tap(sy, height), tap(sy + 1, height))
  for c in 0..<3 {
    func pixel(_ x: Int, _ y: Int) -> Int {
      x < 0 || y < 0 ? 0 : Int(warp.pixels[(y * width + x) * 3 + c])
    }
    let sum =
      Int(w.0) * pixel(xs.0, ys.0) + Int(w.1) * pixel(xs.1, ys.0) + Int(w.2) * pixel(xs.0, ys.1)
      + Int(w.3) * pixel(xs.1, ys.1)
    out[c] = level(min(255, (sum + 16384) >> 15))
  }
}
