/// IEEE 754 binary16 to binary32 conversion.
///
/// Written out by hand rather than through `Float16`, which is unavailable on some Apple
/// x86 targets; this file is the only place that answers the fp16 question.
public enum Half {
  /// Converts the bit pattern of a half-precision float to a `Float`, exactly.
  public static func float(fromBits bits: UInt16) -> Float {
    let sign = UInt32(bits >> 15) << 31
    let exponent = Int((bits >> 10) & 0x1F)
    var mantissa = UInt32(bits & 0x3FF)
    switch exponent {
    case 0:
      if mantissa == 0 { return Float(bitPattern: sign) }
      // Subnormal: renormalize so the implicit leading bit is set.
      var e = -1
      repeat {
        mantissa <<= 1
        e += 1
      } while mantissa & 0x400 == 0
      mantissa &= 0x3FF
      let biased = UInt32(127 - 15 - e)
      return Float(bitPattern: sign | biased << 23 | mantissa << 13)
    case 0x1F:
      return Float(bitPattern: sign | 0x7F80_0000 | mantissa << 13)
    default:
      let biased = UInt32(exponent - 15 + 127)
      return Float(bitPattern: sign | biased << 23 | mantissa << 13)
    }
  }

  /// Converts `count` little-endian half-precision values starting at `source` into
  /// `output`, eight at a time, with the same results as `float(fromBits:)` (every one of
  /// the 65536 patterns is tested): exponent and mantissa shifted into place and the
  /// exponent rebased; infinities and NaNs rebased once more; subnormals renormalised by
  /// subtracting 2^-14 from a float that carries them as its mantissa, which is exact.
  public static func floats(
    fromLittleEndian source: UnsafeRawPointer, count: Int, into output: UnsafeMutablePointer<Float>
  ) {
    var i = 0
    while i + 8 <= count {
      let h = SIMD8<UInt32>(truncatingIfNeeded: source.loadUnaligned(fromByteOffset: 2 * i, as: SIMD8<UInt16>.self))
      var o = (h & 0x7FFF) &<< 13
      let exponent = o & (0x7C00 &<< 13)
      o &+= (127 - 15) &<< 23
      o = o.replacing(with: o &+ ((128 - 16) &<< 23), where: exponent .== SIMD8<UInt32>(repeating: 0x7C00 << 13))
      let subnormal =
        unsafeBitCast(o &+ (1 &<< 23), to: SIMD8<Float>.self) - SIMD8(repeating: Float(bitPattern: 113 << 23))
      o = o.replacing(with: unsafeBitCast(subnormal, to: SIMD8<UInt32>.self), where: exponent .== SIMD8<UInt32>())
      o |= (h & 0x8000) &<< 16
      UnsafeMutableRawPointer(output + i).storeBytes(of: o, as: SIMD8<UInt32>.self)
      i += 8
    }
    while i < count {
      output[i] = float(fromBits: UInt16(littleEndian: source.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)))
      i += 1
    }
  }
}
