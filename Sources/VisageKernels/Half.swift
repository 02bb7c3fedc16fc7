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
}
