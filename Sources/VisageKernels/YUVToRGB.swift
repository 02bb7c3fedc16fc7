/// BT.601 YUV 4:2:0 frames (8-bit samples) to packed 8-bit RGB, in the 20-bit fixed point of
/// OpenCV's `cvtColor` (`COLOR_YUV2RGB_NV12`, `_NV21`, `_I420`).
///
/// Every pixel of a 2×2 block takes the block's one chroma sample (no interpolation), and
/// an odd last column or row takes the chroma sample of its half-block. For Y, U, V:
///
///     luma  = max(0, Y − lumaOffset) · luma
///     R = (luma + 2^19 + crToRed · (V − 128)) >> 20
///     G = (luma + 2^19 + crToGreen · (V − 128) + cbToGreen · (U − 128)) >> 20
///     B = (luma + 2^19 + cbToBlue · (U − 128)) >> 20
///
/// each saturated to 0...255, the shift rounding down (an arithmetic shift, as OpenCV's).
public enum YUVToRGB {
  /// Where a frame's samples are: a luma plane of width × height samples and two chroma
  /// planes of ⌈width/2⌉ × ⌈height/2⌉. Interleaved chroma (NV12, NV21) is given as `u` and
  /// `v` one byte apart in the same rows with `chromaStep` 2; planar chroma (I420) has
  /// `chromaStep` 1.
  public struct Planes {
    /// The first luma (Y) sample.
    public var y: UnsafePointer<UInt8>
    /// Bytes between the starts of two luma rows.
    public var yBytesPerRow: Int
    /// The first Cb (U) sample.
    public var u: UnsafePointer<UInt8>
    /// Bytes between the starts of two Cb rows.
    public var uBytesPerRow: Int
    /// The first Cr (V) sample.
    public var v: UnsafePointer<UInt8>
    /// Bytes between the starts of two Cr rows.
    public var vBytesPerRow: Int
    /// Bytes from one chroma sample to the next in a row: 1 (planar) or 2 (interleaved).
    public var chromaStep: Int

    /// Describes a frame; every row the conversion reads must lie inside the caller's buffers.
    public init(
      y: UnsafePointer<UInt8>, yBytesPerRow: Int, u: UnsafePointer<UInt8>, uBytesPerRow: Int,
      v: UnsafePointer<UInt8>, vBytesPerRow: Int, chromaStep: Int
    ) {
      (self.y, self.yBytesPerRow, self.u, self.uBytesPerRow) = (y, yBytesPerRow, u, uBytesPerRow)
      (self.v, self.vBytesPerRow, self.chromaStep) = (v, vBytesPerRow, chromaStep)
    }
  }

  /// The two BT.601 matrices in 20-bit fixed point (see the type's summary for how they
  /// are applied).
  public enum Matrix: Sendable, CaseIterable {
    /// Video range (Y 16...235, chroma 16...240), OpenCV's `ITUR_BT_601_*` constants:
    /// 1.164, 1.596, −0.813, −0.391 and 2.018 times 2^20, rounded.
    case videoRange
    /// Full range (every sample 0...255, JPEG's YCbCr): R = Y + 1.402 (V − 128),
    /// G = Y − 0.344136 (U − 128) − 0.714136 (V − 128), B = Y + 1.772 (U − 128), each
    /// coefficient times 2^20 rounded to the nearest integer, Y's exactly 2^20.
    case fullRange

    /// The fraction bits of every coefficient.
    public static let shift: Int32 = 20
    /// One half in that fixed point: the sums round to nearest before the shift.
    public static let half: Int32 = 1 << 19

    /// Subtracted from Y before it is scaled, saturating at 0.
    public var lumaOffset: Int32 { self == .videoRange ? 16 : 0 }
    /// Y's coefficient.
    public var luma: Int32 { self == .videoRange ? 1_220_542 : 1 << 20 }
    /// (V − 128)'s coefficient in red.
    public var crToRed: Int32 { self == .videoRange ? 1_673_527 : 1_470_104 }
    /// (V − 128)'s coefficient in green.
    public var crToGreen: Int32 { self == .videoRange ? -852_492 : -748_826 }
    /// (U − 128)'s coefficient in green.
    public var cbToGreen: Int32 { self == .videoRange ? -409_993 : -360_853 }
    /// (U − 128)'s coefficient in blue.
    public var cbToBlue: Int32 { self == .videoRange ? 2_116_026 : 1_858_077 }
  }
}

extension YUVToRGB {
  /// The reference's arithmetic eight pixels at a time, bit for bit.
  ///
  /// Works a chroma row at a time: its three sums without luma (`chromaTerms`) go to a row of
  /// scratch that both luma rows then read. Only that scratch is allocated; pixels are written
  /// straight to `output`.
  public static func optimized(
    _ planes: Planes, width: Int, height: Int, _ matrix: Matrix, output: UnsafeMutablePointer<UInt8>
  ) {
    let span = (width + 1) / 2
    withUnsafeTemporaryAllocation(of: Int32.self, capacity: 3 * span) { scratch in
      let base = scratch.baseAddress!
      let terms = Terms(red: base, green: base + span, blue: base + 2 * span)
      switch matrix {
      case .videoRange: rows(planes, width: width, height: height, VideoRange.self, terms, output: output)
      case .fullRange: rows(planes, width: width, height: height, FullRange.self, terms, output: output)
      }
    }
  }

  private static func rows<M: MatrixConstants>(
    _ planes: Planes, width: Int, height: Int, _ matrix: M.Type, _ terms: Terms, output: UnsafeMutablePointer<UInt8>
  ) {
    for row in 0..<(height + 1) / 2 {
      chromaTerms(planes, row: row, count: (width + 1) / 2, matrix, terms)
      for y in 2 * row..<min(2 * row + 2, height) {
        // The vector stores write four bytes past their eight pixels, which the pixels after
        // them overwrite later; so the last row's final two pixels are written one by one.
        lumaRow(
          planes.y + y * planes.yBytesPerRow, width: width, matrix, terms, output + y * width * 3,
          vectorEnd: y == height - 1 ? width - 2 : width)
      }
    }
  }

  /// A matrix as a type: each gets its own copy of the loops, its constants folded in (full
  /// range's luma product becomes a shift).
  private protocol MatrixConstants { static var matrix: Matrix { get } }
  private enum VideoRange: MatrixConstants { static var matrix: Matrix { .videoRange } }
  private enum FullRange: MatrixConstants { static var matrix: Matrix { .fullRange } }

  /// Levels added to every sum in `Terms` (as 512 · 2^20, besides the rounding half): every
  /// channel's level, at least −258 before, is then positive, so clamping it to 0...255 is
  /// one unsigned saturating subtraction of 512 and one minimum, both single SSE2
  /// instructions on 16-bit lanes. The largest sum stays under 2^31.
  private static let biasLevels: Int32 = 512
  private static let bias = Matrix.half + biasLevels << Matrix.shift

  /// One chroma row's sums without luma, one per chroma sample, biased (`bias`).
  private struct Terms {
    var red: UnsafeMutablePointer<Int32>
    var green: UnsafeMutablePointer<Int32>
    var blue: UnsafeMutablePointer<Int32>
  }
}

extension YUVToRGB {
  /// Fills `terms` with chroma row `row`'s sums: `bias` + the chroma products of each channel.
  @inline(__always)
  private static func chromaTerms<M: MatrixConstants>(
    _ planes: Planes, row: Int, count: Int, _: M.Type, _ terms: Terms
  ) {
    let c = M.matrix
    let u = planes.u + row * planes.uBytesPerRow
    let v = planes.v + row * planes.vBytesPerRow
    var i = 0
    if planes.chromaStep == 2 && (u + 1 == v || v + 1 == u) {
      // Interleaved: sixteen bytes are eight little-endian 16-bit pairs, the first sample of
      // each pair in the low byte (U for NV12, V for NV21).
      let (first, uIsFirst) = u < v ? (u, true) : (v, false)
      while i + 8 <= count {
        let pairs = UnsafeRawPointer(first + 2 * i).loadUnaligned(as: SIMD8<UInt16>.self)
        let (a, b) = (pairs & SIMD8(repeating: 0xFF), pairs &>> 8)
        storeTerms(uIsFirst ? a : b, uIsFirst ? b : a, c, terms, at: i)
        i += 8
      }
    } else if planes.chromaStep == 1 {
      while i + 8 <= count {
        let us = UnsafeRawPointer(u + i).loadUnaligned(as: SIMD8<UInt8>.self)
        let vs = UnsafeRawPointer(v + i).loadUnaligned(as: SIMD8<UInt8>.self)
        storeTerms(widened(us), widened(vs), c, terms, at: i)
        i += 8
      }
    }
    while i < count {
      let cb = Int32(u[i * planes.chromaStep]) - 128
      let cr = Int32(v[i * planes.chromaStep]) - 128
      let red = bias + c.crToRed * cr
      let green = bias + c.crToGreen * cr + c.cbToGreen * cb
      let blue = bias + c.cbToBlue * cb
      (terms.red[i], terms.green[i], terms.blue[i]) = (red, green, blue)
      i += 1
    }
  }

  /// Eight chroma samples' sums, stored from `offset`.
  ///
  /// The products are taken of the unsigned samples, with the −128 folded into the constant
  /// (c · (s − 128) = c · s − 128 c), and of the green coefficients' magnitudes (both are
  /// negative): `product` needs both factors non-negative.
  @inline(__always)
  private static func storeTerms(
    _ u: SIMD8<UInt16>, _ v: SIMD8<UInt16>, _ c: Matrix, _ terms: Terms, at offset: Int
  ) {
    let red = SIMD8(repeating: bias - 128 * c.crToRed) &+ product(v, c.crToRed)
    let green =
      SIMD8(repeating: bias - 128 * (c.crToGreen + c.cbToGreen)) &- product(v, -c.crToGreen)
      &- product(u, -c.cbToGreen)
    let blue = SIMD8(repeating: bias - 128 * c.cbToBlue) &+ product(u, c.cbToBlue)
    UnsafeMutableRawPointer(terms.red + offset).storeBytes(of: red, as: SIMD8<Int32>.self)
    UnsafeMutableRawPointer(terms.green + offset).storeBytes(of: green, as: SIMD8<Int32>.self)
    UnsafeMutableRawPointer(terms.blue + offset).storeBytes(of: blue, as: SIMD8<Int32>.self)
  }

  /// samples · coefficient exactly, for samples up to 255 and a coefficient in 0..<2^24,
  /// from 16-bit multiplies (SSE2 has no 32-bit one): the product's low half, and its high
  /// half as the high half of samples times the coefficient's low 16 bits plus samples times
  /// its high bits. LLVM makes these `pmullw`, `pmulhuw`, `pmullw`, and the two halves
  /// one unpack each way.
  @inline(__always)
  private static func product(_ samples: SIMD8<UInt16>, _ coefficient: Int32) -> SIMD8<Int32> {
    let low = SIMD8<UInt16>(repeating: UInt16(truncatingIfNeeded: coefficient))
    let high =
      narrowed((widened(samples) &* widened(low)) &>> 16) &+ samples &* SIMD8(repeating: UInt16(coefficient >> 16))
    return unsafeBitCast(widened(samples &* low) | widened(high) &<< 16, to: SIMD8<Int32>.self)
  }
}

extension YUVToRGB {
  /// One row of pixels: eight at a time while `x + 8 <= vectorEnd`, then one at a time.
  ///
  /// Each channel's eight levels become bytes; the bytes are interleaved into 32-bit words
  /// R, G, B, 0, and pairs of words squeezed into six bytes each (`store`).
  @inline(__always)
  private static func lumaRow<M: MatrixConstants>(
    _ luma: UnsafePointer<UInt8>, width: Int, _: M.Type, _ terms: Terms, _ out: UnsafeMutablePointer<UInt8>,
    vectorEnd: Int
  ) {
    let c = M.matrix
    let offset = SIMD8<UInt8>(repeating: UInt8(c.lumaOffset))
    // Each chroma block's sum serves the two pixels of its column pair.
    @inline(__always) func load(_ p: UnsafeMutablePointer<Int32>) -> SIMD8<Int32> {
      let t = UnsafeRawPointer(p + x / 2).loadUnaligned(as: SIMD4<Int32>.self)
      return SIMD8(t[0], t[0], t[1], t[1], t[2], t[2], t[3], t[3])
    }
    var x = 0
    while x + 8 <= vectorEnd {
      // Y − offset, saturating at 0 (OpenCV's max(0, Y − 16)).
      let y = UnsafeRawPointer(luma + x).loadUnaligned(as: SIMD8<UInt8>.self)
      let l = product(widened(y.replacing(with: offset, where: y .< offset) &- offset), c.luma)
      let rg = interleave(level(l &+ load(terms.red)), level(l &+ load(terms.green)))
      let b0 = interleave(level(l &+ load(terms.blue)), SIMD8())
      let (rgWords, b0Words) = (unsafeBitCast(rg, to: SIMD8<UInt16>.self), unsafeBitCast(b0, to: SIMD8<UInt16>.self))
      let o = UnsafeMutableRawPointer(out + 3 * x)
      store(interleave(rgWords.lowHalf, b0Words.lowHalf), at: o)
      store(interleave(rgWords.highHalf, b0Words.highHalf), at: o + 12)
      x += 8
    }
    while x < width {
      let l = max(0, Int32(luma[x]) - c.lumaOffset) * c.luma
      out[3 * x] = UInt8(min(max((l + terms.red[x / 2]) >> Matrix.shift - biasLevels, 0), 255))
      out[3 * x + 1] = UInt8(min(max((l + terms.green[x / 2]) >> Matrix.shift - biasLevels, 0), 255))
      out[3 * x + 2] = UInt8(min(max((l + terms.blue[x / 2]) >> Matrix.shift - biasLevels, 0), 255))
      x += 1
    }
  }

  /// A channel's biased sums shifted down, unbiased and saturated to 0...255.
  @inline(__always)
  private static func level(_ sum: SIMD8<Int32>) -> SIMD8<UInt8> {
    let v = unsafeBitCast(narrowed(sum &>> Matrix.shift), to: SIMD8<UInt16>.self)
    let (floor, top) = (SIMD8<UInt16>(repeating: UInt16(biasLevels)), SIMD8<UInt16>(repeating: 255))
    let above = v.replacing(with: floor, where: v .< floor) &- floor
    return narrowed(above.replacing(with: top, where: above .> top))
  }

  /// Four pixels' R, G, B, 0 words as twelve bytes: a sixteen-byte store of two six-byte
  /// pairs eight bytes apart, then the second pair again six bytes in, so that four bytes
  /// after the twelve are written too (with zeros).
  @inline(__always)
  private static func store(_ words: SIMD8<UInt16>, at o: UnsafeMutableRawPointer) {
    let q = unsafeBitCast(words, to: SIMD2<UInt64>.self)
    let pairs = (q & SIMD2(repeating: 0xFF_FFFF)) | ((q &>> 8) & SIMD2(repeating: 0xFFFF_FF00_0000))
    o.storeBytes(of: pairs, as: SIMD2<UInt64>.self)
    o.storeBytes(of: pairs[1], toByteOffset: 6, as: UInt64.self)
  }

  /// a0, b0, a1, b1, ...
  @inline(__always)
  private static func interleave(_ a: SIMD8<UInt8>, _ b: SIMD8<UInt8>) -> SIMD16<UInt8> {
    SIMD16(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3], a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7])
  }

  /// a0, b0, a1, b1, ...
  @inline(__always)
  private static func interleave(_ a: SIMD4<UInt16>, _ b: SIMD4<UInt16>) -> SIMD8<UInt16> {
    SIMD8(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3])
  }
}

// MARK: Lane conversions

// The standard library's `init(truncatingIfNeeded:)` between vector types is a specialization
// the module shares; compiled into another file's object, it stays a call here (measured: the
// conversion 3.4 times slower). Lane by lane these inline, and LLVM makes them one instruction.

@inline(__always) private func widened(_ v: SIMD8<UInt8>) -> SIMD8<UInt16> { lanes(v) { UInt16($0) } }
@inline(__always) private func widened(_ v: SIMD8<UInt16>) -> SIMD8<UInt32> { lanes(v) { UInt32($0) } }
@inline(__always)
private func narrowed(_ v: SIMD8<UInt32>) -> SIMD8<UInt16> { lanes(v) { .init(truncatingIfNeeded: $0) } }
@inline(__always)
private func narrowed(_ v: SIMD8<Int32>) -> SIMD8<Int16> { lanes(v) { .init(truncatingIfNeeded: $0) } }
@inline(__always)
private func narrowed(_ v: SIMD8<UInt16>) -> SIMD8<UInt8> { lanes(v) { .init(truncatingIfNeeded: $0) } }

@inline(__always)
private func lanes<A, B>(_ v: SIMD8<A>, _ f: (A) -> B) -> SIMD8<B> {
  SIMD8(f(v[0]), f(v[1]), f(v[2]), f(v[3]), f(v[4]), f(v[5]), f(v[6]), f(v[7]))
}
