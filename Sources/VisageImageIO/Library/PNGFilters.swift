#if !canImport(ImageIO)
  /// PNG's five row filters undone (PNG specification, section 9), for 8-bit RGB and RGBA.
  ///
  /// Sub, Average and Paeth predict each byte from the byte a pixel to the left, so a row is a
  /// chain from pixel to pixel; libpng walks it a byte at a time. Here a pixel's channels go
  /// through each step together, in the lanes of one vector, which is the same
  /// arithmetic on each byte: the same bytes out (`DirectPNGTests`).
  enum PNGFilters {
    /// Unfilters one row of `rowBytes` bytes, filtered with `filter` (0...4), from `raw` into
    /// `out`, given the unfiltered row above (`prior`; zeros for the first row).
    ///
    /// Rows (of `channels` 3 or 4) are read eight bytes a pixel, so `raw` and `prior` must
    /// have eight bytes past the row that may be read; `out` gets exactly `rowBytes` bytes. `out`
    /// may lie before `raw` in the same buffer (DirectPNG unfilters in place): every byte is read
    /// before anything is written over it, as `out` never gets ahead of `raw`.
    static func unfilter(
      _ filter: UInt8, _ raw: UnsafePointer<UInt8>, prior: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>,
      rowBytes: Int, channels: Int
    ) {
      switch filter {
      case 0: out.update(from: raw, count: rowBytes)
      case 2:
        // Sixteen bytes at a time (the compiler leaves a loop whose rows may overlap scalar).
        var i = 0
        while i + 16 <= rowBytes {
          let above = UnsafeRawPointer(prior + i).loadUnaligned(as: SIMD16<UInt8>.self)
          let sum = UnsafeRawPointer(raw + i).loadUnaligned(as: SIMD16<UInt8>.self) &+ above
          UnsafeMutableRawPointer(out + i).storeBytes(of: sum, as: SIMD16<UInt8>.self)
          i += 16
        }
        while i < rowBytes {
          out[i] = raw[i] &+ prior[i]
          i += 1
        }
      default: unfilterPixels(filter, raw, prior: prior, into: out, rowBytes: rowBytes, channels: channels)
      }
    }

    /// Sub (1), Average (3) or Paeth (4) on a row of three- or four-byte pixels, a pixel at a
    /// time with its channels in the lanes of one vector (eight lanes, the upper four unused:
    /// a whole SSE register, which the compiler handles better than four lanes).
    private static func unfilterPixels(
      _ filter: UInt8, _ raw: UnsafePointer<UInt8>, prior: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>,
      rowBytes: Int, channels: Int
    ) {
      let last = rowBytes - channels
      var a = Pixel()
      var c = Pixel()
      var i = 0
      let byte = Pixel(repeating: 0xFF)
      @inline(__always)
      func step(_ next: Pixel) {
        a = next
        storePixel(bytes(a)[0], out + i, channels: channels, last: i == last)
        i += channels
      }
      switch filter {
      case 1:
        while i <= last { step((load(raw + i) &+ a) & byte) }
      case 3:
        while i <= last { step((load(raw + i) &+ ((a &+ load(prior + i)) &>> 1)) & byte) }
      default:
        while i <= last {
          let b = load(prior + i)
          let next = paeth(a, b, c, load(raw + i), byte)
          c = b
          step(next)
        }
      }
    }

    /// Two consecutive Paeth rows of three- or four-byte pixels at once: row 0 (from `raw0`,
    /// above it `prior`) in the low four lanes, row 1 (from `raw1`, above it row 0's output)
    /// in the high four, a pixel behind, so that row 1's above and upper-left pixels are row
    /// 0's results of the two steps before. The chain from step to step is as long as one row's,
    /// and each step does two pixels: about twice one row's speed. Same reads and writes as
    /// `unfilter` on each row in turn (`out0` then `out1`, which may lie before `raw0` in the
    /// same buffer if they end before it).
    static func unfilterPaethPair(
      _ raw0: UnsafePointer<UInt8>, _ raw1: UnsafePointer<UInt8>, prior: UnsafePointer<UInt8>,
      into out0: UnsafeMutablePointer<UInt8>, _ out1: UnsafeMutablePointer<UInt8>, rowBytes: Int, channels: Int
    ) {
      let n = rowBytes / channels
      let byte = Pixel(repeating: 0xFF)
      // a: the previous step's results (row 0's left, row 1's left); c: the previous step's b.
      var a = Pixel()
      var c = Pixel()
      for k in 0...n {
        // Row 0 has no pixel n, row 1 none before 0: those lanes compute from other pixels' bytes
        // (read again, clamped to the row) and are neither stored nor used.
        let low = UInt32(k < n ? load32(prior + k * channels) : 0)
        let b = widen(low, 0) | shiftedUp(a)
        let r = widen(load32(raw0 + min(k, n - 1) * channels), load32(raw1 + max(k - 1, 0) * channels))
        var result = paeth(a, b, c, r, byte)
        if k == 0 { result = result & Pixel(255, 255, 255, 255, 0, 0, 0, 0) }  // row 1's left edge: zeros
        let pixels = bytes(result)
        if k < n { storePixel(pixels[0], out0 + k * channels, channels: channels, last: k == n - 1) }
        if k > 0 { storePixel(pixels[1], out1 + (k - 1) * channels, channels: channels, last: k == n) }
        (a, c) = (result, b)
      }
    }

    /// The Paeth step on each lane: `r` plus the predictor, as bytes. The predictor is the
    /// neighbour (left a, above b, upper left c) nearest to a + b - c, ties in that order: a when
    /// |b - c| is no more than |a - c| and |a + b - 2c|, else b when |a - c| is no more than
    /// |a + b - 2c|, else c (libpng's and the specification's rule). What does not need a is
    /// done first, so that the chain from one pixel's a to the next is short: two differences,
    /// their magnitudes, the comparisons and two selections.
    @inline(__always)
    private static func paeth(_ a: Pixel, _ b: Pixel, _ c: Pixel, _ r: Pixel, _ byte: Pixel) -> Pixel {
      let toA = magnitude(b &- c)
      let twoCMinusB = c &+ c &- b
      let (fromB, fromC) = ((r &+ b) & byte, (r &+ c) & byte)
      let toB = pointwiseMax(a &- c, c &- a)
      let toC = pointwiseMax(a &- twoCMinusB, twoCMinusB &- a)
      let fromA = (r &+ a) & byte
      let notA = (toA .> toB) .| (toA .> toC)
      return fromA.replacing(with: fromB.replacing(with: fromC, where: toB .> toC), where: notA)
    }

    /// Four bytes, little-endian.
    @inline(__always)
    private static func load32(_ p: UnsafePointer<UInt8>) -> UInt32 {
      UnsafeRawPointer(p).loadUnaligned(as: UInt32.self)
    }

    /// Two pixels' four bytes as the low and high lanes.
    @inline(__always)
    private static func widen(_ low: UInt32, _ high: UInt32) -> Pixel {
      Pixel(truncatingIfNeeded: unsafeBitCast(SIMD2<UInt32>(low, high), to: SIMD8<UInt8>.self))
    }

    /// The low four lanes moved to the high four, zeros below.
    @inline(__always)
    private static func shiftedUp(_ v: Pixel) -> Pixel {
      unsafeBitCast(SIMD2<UInt64>(0, unsafeBitCast(v, to: SIMD2<UInt64>.self)[0]), to: Pixel.self)
    }

    /// The low and the high four lanes as four bytes each.
    @inline(__always)
    private static func bytes(_ v: Pixel) -> SIMD2<UInt32> {
      unsafeBitCast(SIMD8<UInt8>(truncatingIfNeeded: v), to: SIMD2<UInt32>.self)
    }

    /// A pixel's bytes: all four (a three-byte pixel's fourth is the next pixel's first,
    /// written again after it), or a row's last three-byte pixel's three.
    @inline(__always)
    private static func storePixel(_ bytes: UInt32, _ p: UnsafeMutablePointer<UInt8>, channels: Int, last: Bool) {
      if channels == 4 || !last {
        UnsafeMutableRawPointer(p).storeBytes(of: bytes, as: UInt32.self)
      } else {
        (p[0], p[1], p[2]) = (
          UInt8(truncatingIfNeeded: bytes), UInt8(truncatingIfNeeded: bytes >> 8),
          UInt8(truncatingIfNeeded: bytes >> 16)
        )
      }
    }

    /// A pixel's bytes in the low four lanes (and in `unfilterPaethPair`, the other row's pixel
    /// in the high four).
    typealias Pixel = SIMD8<Int16>

    /// Eight bytes as 16-bit lanes (four would do; eight load as one).
    @inline(__always)
    private static func load(_ p: UnsafePointer<UInt8>) -> Pixel {
      Pixel(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self))
    }

    /// The lanes' absolute values (no lane is −32768 here).
    @inline(__always)
    private static func magnitude(_ v: Pixel) -> Pixel {
      pointwiseMax(v, 0 &- v)
    }
  }
#endif
