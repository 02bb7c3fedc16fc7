import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTestSupport

/// `Tests/Fixtures/exif/`, written by `Tools/make_exif_fixtures.py`: JPEG and PNG files with
/// real Exif orientation blocks (1 to 8), malformed ones, and the pixels Pillow's
/// `ImageOps.exif_transpose` makes of each (as FNV-1a 64 hashes).
struct ExifManifest: Decodable {
  struct File: Decodable, Sendable, CustomTestStringConvertible {
    let file: String
    /// The orientation to read, 1...8, or nil when the block must be ignored.
    let exif: Int?
    let orientation: String
    let storedWidth: Int, storedHeight: Int, uprightWidth: Int, uprightHeight: Int
    let storedHash: String, uprightHash: String
    let about: String
    var testDescription: String { file }
  }

  let files: [File]

  static let shared: ExifManifest? = {
    guard let bytes = try? Fixtures.bytes(atPath: path("manifest.json")) else { return nil }
    return try? JSONDecoder().decode(ExifManifest.self, from: Data(bytes))
  }()

  static var files: [File] { shared?.files ?? [] }

  static func path(_ name: String) -> String { Fixtures.fixturePath("exif/" + name) }

  /// FNV-1a 64 of an image's RGB bytes, in hex, as the script writes it.
  static func hash(_ image: MPImage) -> String { hash(image.pixels) }

  /// FNV-1a 64 of some bytes, in hex, as the fixture scripts write it.
  static func hash(_ bytes: [UInt8]) -> String {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes { h = (h ^ UInt64(byte)) &* 0x100_0000_01B3 }
    let hex = String(h, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }
}

@Suite struct ExifOrientationTests {
  @Test func manifestLoads() {
    #expect(ExifManifest.files.count > 30, "run Tools/make_exif_fixtures.py")
  }

  /// The tag is read (or, malformed, ignored); the stored pixels are Pillow's; the upright
  /// view, `applyingOrientation()`, is exactly what Pillow's `exif_transpose` gives, mirrored
  /// tags included (they go through `removingMirroring()` when decoding).
  @Test(arguments: ExifManifest.files) func uprightViewIsPillows(_ file: ExifManifest.File) throws {
    let decoded = try DecodedImage(contentsOfFile: ExifManifest.path(file.file))
    #expect(decoded.format == (file.file.hasSuffix(".png") ? .png : .jpeg))
    #expect(decoded.exifOrientation?.exifValue == file.exif)
    let expected = try #require(MPImage.Orientation(rawValue: file.orientation))
    #expect(decoded.storedOrientation == expected && decoded.image.orientation == expected.removingMirror)
    let upright = decoded.image.applyingOrientation()
    #expect(upright.orientation == .up)
    #expect(upright.width == file.uprightWidth && upright.height == file.uprightHeight)
    #expect(ExifManifest.hash(upright) == file.uprightHash, "upright pixels differ from Pillow's exif_transpose")
    // Told to ignore the tag, the decoder gives the stored pixels as Pillow decodes them.
    let stored = try MPImage(contentsOfFile: ExifManifest.path(file.file), orientation: .up)
    #expect(stored.width == file.storedWidth && stored.height == file.storedHeight)
    #expect(ExifManifest.hash(stored) == file.storedHash, "stored pixels differ from Pillow's decode")
  }

  /// PNG is lossless, so every valid PNG turns into exactly the upright picture.
  @Test func everyPNGShowsTheSameUprightPicture() throws {
    let upright = try MPImage(contentsOfFile: ExifManifest.path("png_upright.png"))
    for tag in 1...8 {
      let image = try MPImage(contentsOfFile: ExifManifest.path("png_\(tag).png"))
      #expect(image.applyingOrientation().pixels == upright.pixels, "png_\(tag).png")
      // The same from memory.
      let bytes = try Fixtures.bytes(atPath: ExifManifest.path("png_\(tag).png"))
      #expect(try MPImage(encoded: bytes).applyingOrientation().pixels == upright.pixels)
    }
  }

  /// An orientation given explicitly wins over the tag, and a mirrored one is un-mirrored
  /// just as a mirrored tag is.
  @Test func anExplicitOrientationOverridesTheTag() throws {
    let path = ExifManifest.path("png_6.png")
    let ignored = try DecodedImage(contentsOfFile: path, orientation: .up)
    #expect(ignored.image.orientation == .up && ignored.image.width == 48 && ignored.exifOrientation == .right)
    #expect(ignored.storedOrientation == .up)
    #expect(try MPImage(contentsOfFile: path, orientation: .left).orientation == .left)
    let tagged = try MPImage(contentsOfFile: ExifManifest.path("png_5.png"))
    let given = try MPImage(contentsOfFile: ExifManifest.path("png_5.png"), orientation: .leftMirrored)
    #expect(given.orientation == .left && given.pixels == tagged.pixels)
  }

  /// Un-mirroring keeps the picture: for every orientation, the upright view is the same
  /// before and after, and the result's orientation is one the tasks accept.
  @Test(arguments: MPImage.Orientation.allCases) func removingMirroringKeepsThePicture(
    _ orientation: MPImage.Orientation
  ) throws {
    let image = try MPImage(width: 3, height: 2, rgb: (0..<18).map(UInt8.init), orientation: orientation)
    let unmirrored = image.removingMirroring()
    #expect(throws: Never.self) { try unmirrored.orientation.rotationDegrees() }
    #expect(unmirrored.applyingOrientation().pixels == image.applyingOrientation().pixels)
    #expect(image.applyingOrientation().width == (orientation.swapsSides ? 2 : 3))
  }

  @Test func exifValuesRoundTrip() {
    for value in 1...8 { #expect(MPImage.Orientation(exifValue: value)?.exifValue == value) }
    for value in [0, 9, -1, 0x106] { #expect(MPImage.Orientation(exifValue: value) == nil) }
  }

  // MARK: The TIFF block

  /// A TIFF block with IFD0 at 8 holding `entries` (tag, type, count, 4-byte value field).
  static func tiff(_ entries: [(Int, Int, Int, [UInt8])], bigEndian: Bool = false, count: Int? = nil) -> [UInt8] {
    func bytes(_ value: Int, _ size: Int) -> [UInt8] {
      let little = (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
      return bigEndian ? little.reversed() : little
    }
    var block: [UInt8] =
      Array((bigEndian ? "MM" : "II").utf8) + bytes(42, 2) + bytes(8, 4) + bytes(count ?? entries.count, 2)
    for (tag, type, n, value) in entries { block += bytes(tag, 2) + bytes(type, 2) + bytes(n, 4) + value }
    return block + bytes(0, 4)
  }

  /// A SHORT in a 4-byte value field: its two bytes first, in the block's byte order.
  static func short(_ value: Int, bigEndian: Bool = false) -> [UInt8] {
    (bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]) + [0, 0]
  }

  @Test func bothByteOrdersAndEveryValue() {
    for bigEndian in [false, true] {
      for value in 1...8 {
        let block = Self.tiff(
          [(0x0100, 4, 1, [0, 1, 0, 0]), (0x0112, 3, 1, Self.short(value, bigEndian: bigEndian))], bigEndian: bigEndian)
        #expect(ExifOrientation.read(fromTIFF: block[...])?.exifValue == value)
        // From a slice that does not start at index 0, as a JPEG segment's is.
        let padded = [0xAA, 0xBB] + block
        #expect(ExifOrientation.read(fromTIFF: padded[2...])?.exifValue == value)
      }
    }
  }

  /// A little-endian block with its IFD0 offset replaced.
  static func withIFD0Offset(_ offset: [UInt8], _ block: [UInt8]) -> [UInt8] {
    Array(block.prefix(4)) + offset + Array(block.dropFirst(8))
  }

  @Test func malformedBlocksAreIgnored() {
    let six = (0x0112, 3, 1, Self.short(6))
    let cases: [(String, [UInt8])] = [
      ("empty", []),
      ("no IFD0 entries", Self.tiff([])),
      ("LONG type", Self.tiff([(0x0112, 4, 1, [6, 0, 0, 0])])),
      ("RATIONAL type", Self.tiff([(0x0112, 5, 1, [8, 0, 0, 0])])),
      ("two values", Self.tiff([(0x0112, 3, 2, [6, 0, 6, 0])])),
      ("huge value count", Self.tiff([(0x0112, 3, 0xFFFF_FFFF, Self.short(6))])),
      ("huge entry count", Self.tiff([six], count: 0xFFFF)),
      ("offset past the end", Self.withIFD0Offset([0xF0, 0xFF, 0xFF, 0xFF], Self.tiff([six]))),
      ("offset at the last byte", Self.withIFD0Offset([8, 0, 0, 0], Array(Self.tiff([six]).prefix(9)))),
      ("IFD0 inside the header", Self.withIFD0Offset([4, 0, 0, 0], Self.tiff([six]))),
      ("value 0", Self.tiff([(0x0112, 3, 1, Self.short(0))])),
      ("value 9", Self.tiff([(0x0112, 3, 1, Self.short(9))])),
      ("value 0x0106", Self.tiff([(0x0112, 3, 1, Self.short(0x0106))])),
      ("byte order II but MM data", Array("II".utf8) + Self.tiff([six], bigEndian: true).dropFirst(2)),
      ("mixed byte-order mark", Array("MI".utf8) + Self.tiff([six]).dropFirst(2)),
    ]
    for (name, block) in cases { #expect(ExifOrientation.read(fromTIFF: block[...]) == nil, "\(name)") }
  }

  /// Every prefix of a sound block, and every single-byte change in it, gives nil or an
  /// orientation; none traps. Only the whole entry table holds the tag.
  @Test func everyTruncationAndByteChangeIsSafe() {
    let block = Self.tiff([
      (0x0100, 4, 1, [0, 1, 0, 0]), (0x0112, 3, 1, Self.short(6)), (0x0131, 2, 4, Array("abc\0".utf8)),
    ])
    let tableEnd = 8 + 2 + 3 * 12
    for length in 0..<block.count {
      let read = ExifOrientation.read(fromTIFF: block.prefix(length))
      #expect(read == (length >= tableEnd ? .right : nil), "prefix \(length)")
    }
    for position in block.indices {
      for value in [0x00, 0x01, 0x7F, 0x80, 0xFF] as [UInt8] {
        var changed = block
        changed[position] = value
        _ = ExifOrientation.read(fromTIFF: changed[...])
      }
    }
    var random = RandomSource(seed: 0xE1F)
    for _ in 0..<2000 {
      let garbage = (0..<random.int(in: 0..<64)).map { _ in UInt8(random.int(in: 0..<256)) }
      _ = ExifOrientation.read(fromTIFF: Array("II*\0".utf8 + garbage)[...])
      _ = ExifOrientation.read(fromTIFF: Array("MM\0*".utf8 + garbage)[...])
    }
  }

  // MARK: The containers

  static func jpeg(segments: [(UInt8, [UInt8])]) -> [UInt8] {
    var bytes: [UInt8] = [0xFF, 0xD8]
    for (marker, payload) in segments {
      bytes += [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }
    return bytes + [0xFF, 0xD9]
  }

  static let exifSix = Array("Exif\0\0".utf8) + tiff([(0x0112, 3, 1, short(6))])
  static let exifEight = Array("Exif\0\0".utf8) + tiff([(0x0112, 3, 1, short(8))])

  @Test func jpegSegmentsAreWalkedSafely() {
    let jfif: (UInt8, [UInt8]) = (0xE0, Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
    #expect(ExifOrientation.read(fromFile: Self.jpeg(segments: [jfif, (0xE1, Self.exifSix)])) == .right)
    // The first Exif segment counts; an APP1 that is not Exif (XMP) does not.
    let xmp: (UInt8, [UInt8]) = (0xE1, Array("http://ns.adobe.com/xap/1.0/\0<x/>".utf8))
    #expect(
      ExifOrientation.read(fromFile: Self.jpeg(segments: [xmp, (0xE1, Self.exifEight), (0xE1, Self.exifSix)])) == .left)
    // Fill bytes before a marker, as libjpeg allows.
    var filled = Self.jpeg(segments: [(0xE1, Self.exifSix)])
    filled.insert(contentsOf: [0xFF, 0xFF], at: 2)
    #expect(ExifOrientation.read(fromFile: filled) == .right)
    // Exif after the start of scan is image data, not metadata.
    #expect(ExifOrientation.read(fromFile: Self.jpeg(segments: [(0xDA, [0, 0]), (0xE1, Self.exifSix)])) == nil)
    // A segment length running past the end, or shorter than its own two bytes.
    var long = Self.jpeg(segments: [(0xE1, Self.exifSix)])
    long[4] = 0xFF
    #expect(ExifOrientation.read(fromFile: long) == nil)
    var short = Self.jpeg(segments: [(0xE0, [0]), (0xE1, Self.exifSix)])
    short[5] = 1
    #expect(ExifOrientation.read(fromFile: short) == nil)
    // Every prefix is safe.
    let whole = Self.jpeg(segments: [jfif, (0xE1, Self.exifSix)])
    for length in 0...whole.count { _ = ExifOrientation.read(fromFile: Array(whole.prefix(length))) }
    #expect(ExifOrientation.read(fromFile: Array("not an image".utf8)) == nil)
  }

  static func png(chunks: [(String, [UInt8])]) -> [UInt8] {
    [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunks.flatMap { pngChunk($0.0, $0.1) }
  }

  @Test func pngChunksAreWalkedSafely() {
    let tiff = Self.tiff([(0x0112, 3, 1, Self.short(6))])
    let ihdr = ("IHDR", [UInt8](repeating: 1, count: 13))
    #expect(ExifOrientation.read(fromFile: Self.png(chunks: [ihdr, ("eXIf", tiff), ("IEND", [])])) == .right)
    #expect(
      ExifOrientation.read(fromFile: Self.png(chunks: [ihdr, ("IDAT", [1, 2]), ("eXIf", tiff), ("IEND", [])])) == .right
    )
    // After IEND it is not part of the file.
    #expect(ExifOrientation.read(fromFile: Self.png(chunks: [ihdr, ("IEND", []), ("eXIf", tiff)])) == nil)
    // A wrong CRC drops the chunk, as libpng does.
    var damaged = Self.png(chunks: [ihdr, ("eXIf", tiff), ("IEND", [])])
    damaged[8 + 25 + 8 + tiff.count] ^= 1
    #expect(ExifOrientation.read(fromFile: damaged) == nil)
    // A chunk length running past the end.
    var lying = Self.png(chunks: [ihdr, ("eXIf", tiff), ("IEND", [])])
    lying[8 + 25] = 0x7F
    #expect(ExifOrientation.read(fromFile: lying) == nil)
    let whole = Self.png(chunks: [ihdr, ("eXIf", tiff), ("IEND", [])])
    for length in 0...whole.count { _ = ExifOrientation.read(fromFile: Array(whole.prefix(length))) }
  }
}

extension MPImage.Orientation {
  /// The orientation without its mirror, as decoding leaves a mirrored tag.
  var removingMirror: Self {
    switch self {
    case .upMirrored: .up
    case .downMirrored: .down
    case .leftMirrored: .left
    case .rightMirrored: .right
    default: self
    }
  }
}
