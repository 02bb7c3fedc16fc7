import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTestSupport

/// `Tests/Fixtures/codecs/`, written by `Tools/make_codec_fixtures.py`: PNG and JPEG files,
/// the raw 8-bit RGB each must decode to, and files that must fail. See the script's docstring
/// for how the expected pixels are made.
struct CodecManifest: Decodable {
  /// A file that must decode to `expected` (raw RGB, rows top to bottom).
  struct Decodable: Swift.Decodable, Sendable, CustomTestStringConvertible {
    let file: String
    let expected: String
    let width: Int
    let height: Int
    /// The largest per-sample difference allowed: 0 for every file, JPEG included, since
    /// Pillow's decoder (which made the expected pixels) is libjpeg-turbo with the same
    /// settings.
    let tolerance: Int
    let about: String
    var testDescription: String { file }
  }

  /// A file that must fail with `error`: "truncated", "corrupt" or "tooLarge" (then with the
  /// claimed `width` and `height`).
  struct Failing: Swift.Decodable, Sendable, CustomTestStringConvertible {
    let file: String
    let error: String
    let about: String
    let width: Int?
    let height: Int?
    var testDescription: String { file }
  }

  let decode: [Decodable]
  let fail: [Failing]

  /// The manifest, or nil if it cannot be read (then `manifestLoads` fails).
  static let shared: CodecManifest? = {
    guard let bytes = try? Fixtures.bytes(atPath: path("manifest.json")) else { return nil }
    return try? JSONDecoder().decode(CodecManifest.self, from: Data(bytes))
  }()

  /// The path of a file in `Tests/Fixtures/codecs/`.
  static func path(_ name: String) -> String { Fixtures.fixturePath("codecs/" + name) }

  /// The bytes of a file in `Tests/Fixtures/codecs/`.
  static func bytes(_ name: String) throws -> [UInt8] { try Fixtures.bytes(atPath: path(name)) }
}

/// The format-specific decoder for a fixture, chosen by its extension.
func decodeDirectly(_ name: String, _ bytes: [UInt8]) throws -> MPImage {
  name.hasSuffix(".png") ? try PNG.decode(bytes) : try JPEG.decode(bytes)
}

/// The largest difference between two equally long byte arrays (Int.max if lengths differ).
func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
  guard a.count == b.count else { return .max }
  return zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
}

/// PNG's CRC-32 (ISO 3309), for building and repairing chunks in tests.
enum CRC32 {
  static let table: [UInt32] = (0..<256).map { n in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }

  static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
    return c ^ 0xFFFF_FFFF
  }
}

/// Rewrites the CRC of every whole chunk, so that damage reaches libpng's later stages
/// (IHDR checks, zlib, unfiltering) instead of stopping at the checksum.
func repairingCRCs(_ bytes: [UInt8]) -> [UInt8] {
  var bytes = bytes
  var offset = 8
  while offset + 12 <= bytes.count {
    let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
    guard length <= bytes.count - offset - 12 else { break }
    let crc = bigEndian(CRC32.checksum(bytes[(offset + 4)..<(offset + 8 + length)]))
    bytes.replaceSubrange((offset + 8 + length)..<(offset + 12 + length), with: crc)
    offset += 12 + length
  }
  return bytes
}
