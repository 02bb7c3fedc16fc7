import Visage

/// The Exif orientation tag (0x0112) of JPEG and PNG files.
///
/// A JPEG carries Exif in an APP1 segment that starts with `Exif\0\0`; a PNG in an `eXIf`
/// chunk. Both hold the same TIFF structure: a byte-order mark (`II` little-endian, `MM`
/// big-endian), the number 42, the offset of the first directory (IFD0), and in IFD0 an entry
/// with tag 0x0112, type SHORT, count 1, whose value 1...8 says how the stored pixels are
/// turned and mirrored.
///
/// Exif comes from cameras, phones and editors of every quality, and from anyone who writes a
/// file by hand, so nothing in it is trusted: every offset and count is checked against the
/// bytes actually present, and anything out of line (a short block, an offset past the end, a
/// directory larger than its block, a tag of the wrong type or count, a value outside 1...8)
/// makes the orientation absent, never an error. Only IFD0 is read and no link between
/// directories is followed, so a directory chain that loops back on itself cannot make the
/// reader run on; a loop elsewhere in the file does not spoil a good IFD0.
public enum ExifOrientation {
  /// The orientation the Exif data of a PNG or JPEG file gives, or `nil` when the file has
  /// none, it cannot be read (see above), or the bytes are neither PNG nor JPEG.
  ///
  /// The first Exif block is used, as Pillow and libpng do: the first `Exif` APP1 segment
  /// before a JPEG's scan data, the first `eXIf` chunk of a PNG (whose CRC must be right, as
  /// libpng requires for ancillary chunks).
  public static func read(fromFile bytes: [UInt8]) -> MPImage.Orientation? {
    exifTIFF(bytes).flatMap(read(fromTIFF:))
  }

  /// The orientation as MediaPipe 1.2.2's Python `create_from_file` reads it (with easyexif):
  /// a JPEG's only, and an entry of two SHORTs gives its first (`read(fromFile:)` refuses it).
  public static func readAsMediaPipe(fromFile bytes: [UInt8]) -> MPImage.Orientation? {
    guard ImageFormat(sniffing: bytes) == .jpeg, let tiff = jpegExif(bytes),
      let directory = TIFFDirectory(ifd0Of: tiff),
      let value = directory.firstShort(ofTag: 0x0112)
    else { return nil }
    return MPImage.Orientation(exifValue: value)
  }

  /// The TIFF structure of a PNG's or JPEG's Exif block, if it has one.
  static func exifTIFF(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
    switch ImageFormat(sniffing: bytes) {
    case .jpeg: jpegExif(bytes)
    case .png: pngExif(bytes)
    case nil: nil
    }
  }

  /// The orientation in a TIFF structure (the bytes after `Exif\0\0`, or an `eXIf` chunk's
  /// data), or `nil` when it has none or it cannot be read.
  public static func read(fromTIFF tiff: ArraySlice<UInt8>) -> MPImage.Orientation? {
    // SHORT (type 3), one value: anything else makes the orientation absent.
    guard let directory = TIFFDirectory(ifd0Of: tiff), let entry = directory.value(ofTag: 0x0112),
      let value = entry, isShort(directory, tag: 0x0112)
    else { return nil }
    return MPImage.Orientation(exifValue: value)
  }

  /// Whether the directory's first entry with `tag` has type SHORT.
  private static func isShort(_ directory: TIFFDirectory, tag: Int) -> Bool {
    directory.type(ofTag: tag) == 3
  }

  /// The TIFF structure of a JPEG's first `Exif` APP1 segment before its scan data.
  ///
  /// Markers are found as libjpeg finds them: bytes other than 0xFF between segments are
  /// skipped, as are 0xFF fill bytes before a marker code.
  static func jpegExif(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
    var i = 2  // after SOI
    while i < bytes.count {
      while i < bytes.count, bytes[i] != 0xFF { i += 1 }
      while i < bytes.count, bytes[i] == 0xFF { i += 1 }
      guard i < bytes.count else { return nil }
      let marker = bytes[i]
      i += 1
      switch marker {
      case 0x00, 0x01, 0xD0...0xD8: continue  // a stuffed zero, TEM, RSTn, SOI: no length
      case 0xD9, 0xDA: return nil  // EOI, SOS: no Exif before the image data
      default: break
      }
      guard i + 2 <= bytes.count else { return nil }
      let length = Int(bytes[i]) << 8 | Int(bytes[i + 1])  // counts its own two bytes
      guard length >= 2, length <= bytes.count - i else { return nil }
      let segment = bytes[(i + 2)..<(i + length)]
      if marker == 0xE1, segment.starts(with: exifHeader) {
        return segment.dropFirst(exifHeader.count)
      }
      i += length
    }
    return nil
  }

  /// The data of a PNG's first `eXIf` chunk, if its CRC is right.
  static func pngExif(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
    let found: PNGChunks.Chunk? = bytes.withUnsafeBufferPointer { file in
      for chunk in PNGChunks(file) {
        let type = file[chunk.typeStart..<(chunk.typeStart + 4)]
        if type.elementsEqual("IEND".utf8) { return nil }
        if type.elementsEqual("eXIf".utf8) { return chunk }
      }
      return nil
    }
    guard let found, crc32(bytes[found.checked]) == found.storedCRC else { return nil }
    return bytes[found.data]
  }

  /// What a JPEG APP1 segment holding Exif starts with.
  private static let exifHeader: [UInt8] = Array("Exif\0\0".utf8)

  /// The CRC-32 PNG chunks carry (ISO 3309, reflected polynomial 0xEDB88320), over type and data.
  private static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }
}

extension MPImage.Orientation {
  /// The orientation an Exif orientation value stands for: 1 up, 2 up mirrored, 3 down,
  /// 4 down mirrored, 5 left mirrored, 6 right, 7 right mirrored, 8 left (the meaning
  /// `UIImage.Orientation` gives these names). `nil` outside 1...8.
  public init?(exifValue: Int) {
    switch exifValue {
    case 1: self = .up
    case 2: self = .upMirrored
    case 3: self = .down
    case 4: self = .downMirrored
    case 5: self = .leftMirrored
    case 6: self = .right
    case 7: self = .rightMirrored
    case 8: self = .left
    default: return nil
    }
  }

  /// The Exif orientation value, 1...8, with this meaning.
  public var exifValue: Int {
    switch self {
    case .up: 1
    case .upMirrored: 2
    case .down: 3
    case .downMirrored: 4
    case .leftMirrored: 5
    case .right: 6
    case .rightMirrored: 7
    case .left: 8
    }
  }
}
