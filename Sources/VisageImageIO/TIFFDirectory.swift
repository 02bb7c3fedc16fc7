/// A TIFF structure's directories (the bytes after a JPEG's `Exif\0\0`, or a PNG's `eXIf`
/// chunk), read without trusting anything in them: every offset and count is checked against
/// the bytes present, and a read that would leave them gives nil.
struct TIFFDirectory {
  private let tiff: ArraySlice<UInt8>
  private let bigEndian: Bool
  /// The offset of the directory's entry table (after its 2-byte count).
  private let entries: Int
  private let count: Int

  /// IFD0: after the byte-order mark (`II` or `MM`), 42 and the directory's offset; the
  /// directory must not overlap the 8-byte header, must have an entry, and its entry table
  /// must be wholly present.
  init?(ifd0Of tiff: ArraySlice<UInt8>) {
    let bigEndian: Bool
    switch (tiff.first, tiff.dropFirst().first) {
    case (0x49, 0x49): bigEndian = false  // "II"
    case (0x4D, 0x4D): bigEndian = true  // "MM"
    default: return nil
    }
    guard Self.integer(tiff, bigEndian, at: 2, size: 2) == 42,
      let offset = Self.integer(tiff, bigEndian, at: 4, size: 4)
    else { return nil }
    self.init(tiff: tiff, bigEndian: bigEndian, at: offset)
  }

  private init?(tiff: ArraySlice<UInt8>, bigEndian: Bool, at offset: Int) {
    guard offset >= 8, let count = Self.integer(tiff, bigEndian, at: offset, size: 2), count > 0,
      offset + 2 + 12 * count <= tiff.count
    else { return nil }
    self.tiff = tiff
    self.bigEndian = bigEndian
    entries = offset + 2
    self.count = count
  }

  /// An integer of `size` bytes at `offset` from the TIFF header, in the file's byte order.
  func integer(at offset: Int, size: Int) -> Int? {
    Self.integer(tiff, bigEndian, at: offset, size: size)
  }

  private static func integer(_ tiff: ArraySlice<UInt8>, _ bigEndian: Bool, at offset: Int, size: Int) -> Int? {
    guard offset >= 0, size <= tiff.count, offset <= tiff.count - size else { return nil }
    var value = 0
    for i in 0..<size {
      value = value << 8 | Int(tiff[tiff.startIndex + offset + (bigEndian ? i : size - 1 - i)])
    }
    return value
  }

  /// The first entry with `tag`: `nil` when there is none; else the single value of type
  /// SHORT (3) or LONG (4) it holds, or `.some(nil)` when it holds anything else.
  func value(ofTag tag: Int) -> Int?? {
    for entry in 0..<count {
      let at = entries + 12 * entry
      guard integer(at: at, size: 2) == tag else { continue }
      guard integer(at: at + 4, size: 4) == 1 else { return .some(nil) }
      switch integer(at: at + 2, size: 2) {
      case 3: return .some(integer(at: at + 8, size: 2))
      case 4: return .some(integer(at: at + 8, size: 4))
      default: return .some(nil)
      }
    }
    return nil
  }

  /// The first value of the first entry with `tag` when it has type SHORT and one or two values
  /// (held in the entry itself), as easyexif, MediaPipe's Exif reader, takes it; else `nil`.
  func firstShort(ofTag tag: Int) -> Int? {
    for entry in 0..<count where integer(at: entries + 12 * entry, size: 2) == tag {
      let at = entries + 12 * entry
      guard integer(at: at + 2, size: 2) == 3, let values = integer(at: at + 4, size: 4), (1...2).contains(values)
      else { return nil }
      return integer(at: at + 8, size: 2)
    }
    return nil
  }

  /// The type of the first entry with `tag`, if any.
  func type(ofTag tag: Int) -> Int? {
    for entry in 0..<count where integer(at: entries + 12 * entry, size: 2) == tag {
      return integer(at: entries + 12 * entry + 2, size: 2)
    }
    return nil
  }

  /// The directory an entry of this one points to (the Exif IFD, tag 0x8769), when valid. Only
  /// this one step is taken, so a loop of pointers cannot make a reader run on.
  func subdirectory(tag: Int) -> TIFFDirectory? {
    guard case .some(.some(let offset)) = value(ofTag: tag) else { return nil }
    return TIFFDirectory(tiff: tiff, bigEndian: bigEndian, at: offset)
  }
}

/// The focal length an image's Exif gives, in pixels.
public enum ExifFocalLength {
  /// From `FocalLengthIn35mmFilm` (tag 0xA405 in the Exif directory): the focal length a
  /// 36×24 mm frame would have for the same view, so f = f₃₅ · (the picture's diagonal in
  /// pixels) / (that frame's, √(36² + 24²) mm), as MediaPipe's ImageFilePropertiesCalculator
  /// computes it. `nil` when the file has no such tag, or it is 0 ("unknown") or unreadable.
  public static func pixels(fromFile bytes: [UInt8], width: Int, height: Int) -> Double? {
    guard let tiff = ExifOrientation.exifTIFF(bytes), let exif = TIFFDirectory(ifd0Of: tiff)?.subdirectory(tag: 0x8769),
      case .some(.some(let f35)) = exif.value(ofTag: 0xA405), f35 > 0
    else { return nil }
    let diagonal = (Double(width * width) + Double(height * height)).squareRoot()
    return Double(f35) * diagonal / (36.0 * 36 + 24 * 24).squareRoot()
  }
}
