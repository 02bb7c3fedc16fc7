/// Names an image format from a file's first bytes, for formats Visage does not decode: a
/// request with one is refused (415) saying which it is, rather than "corrupt".
public enum ImageKinds {
  /// The format's name (`WebP`, `HEIC`, `GIF`, …) when the bytes start as such a file does;
  /// nil for PNG, JPEG and anything unrecognised.
  public static func otherFormat(of bytes: some Collection<UInt8>) -> String? {
    let head = Array(bytes.prefix(32))
    func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
      head.count >= offset + prefix.count && Array(head[offset..<offset + prefix.count]) == prefix
    }
    let ascii = { (s: String) in Array(s.utf8) }
    if starts(ascii("RIFF")) && starts(ascii("WEBP"), at: 8) { return "WebP" }
    if starts(ascii("GIF87a")) || starts(ascii("GIF89a")) { return "GIF" }
    if starts(ascii("BM")) && head.count >= 14 { return "BMP" }
    if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "TIFF" }
    if starts([0x00, 0x00, 0x01, 0x00]) { return "ICO" }
    if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { return "JPEG XL" }
    if starts([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20]) || starts([0xFF, 0x4F, 0xFF, 0x51]) {
      return "JPEG 2000"
    }
    if starts(ascii("%PDF")) { return "PDF" }
    if starts(ascii("ftyp"), at: 4), head.count >= 12 {
      let brand = String(decoding: head[8..<12], as: UTF8.self)
      switch brand {
      case "avif", "avis": return "AVIF"
      case "heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1": return "HEIC"
      default: return "an ISO media file (\(brand))"
      }
    }
    return nil
  }
}
