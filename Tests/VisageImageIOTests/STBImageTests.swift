import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTestSupport

/// `Tests/Fixtures/stb/manifest.json`, written by `Tools/make_stb_fixtures.py`: what MediaPipe
/// 1.2.2's Python `Image.create_from_file` made of each file (its format name, shape and the
/// FNV-1a 64 hash of its pixels), or the exception it raised, or the signal that killed it.
struct STBManifest: Decodable {
  struct File: Decodable, Sendable, CustomTestStringConvertible {
    let file: String
    let format: String?
    let shape: [Int]?
    let fnv1a64: String?
    let error: String?
    let crash: String?
    var testDescription: String { file }
  }

  let files: [File]

  static let files: [File] = {
    guard let bytes = try? Fixtures.bytes(atPath: Fixtures.fixturePath("stb/manifest.json")),
      let manifest = try? JSONDecoder().decode(STBManifest.self, from: Data(bytes))
    else { return [] }
    return manifest.files
  }()

  /// Files MediaPipe gets wrong, where Visage differs on purpose.
  static let knownDifferences: [String: String] = [
    // A BMP stored top down (negative height): stb_image 2.26 to 2.30 read it; MediaPipe's
    // build raises RuntimeError.
    "stb/bmp_top_down.bmp": "MediaPipe refuses a top-down BMP",
    // A cut-off Exif directory kills MediaPipe with SIGILL; Visage reads the stored pixels.
    "exif/bad_truncated_ifd.jpg": "MediaPipe dies",
  ]
}

@Suite(.enabled(if: STBImage.isAvailable, "stb_image is not in this build: run Tools/stb-header, then build"))
struct STBImageTests {
  @Test func manifestLoads() {
    #expect(STBManifest.files.count > 100, "run Tools/make_stb_fixtures.py")
  }

  /// Pixels, shape and channel count equal to MediaPipe's on every file it reads (JPEG of every
  /// kind and Exif orientation, cut short too; PNG of every layout; BMP; GIF), and a failure
  /// wherever it raises.
  @Test(arguments: STBManifest.files.filter { STBManifest.knownDifferences[$0.file] == nil })
  func readsAsMediaPipe(_ file: STBManifest.File) throws {
    let path = Fixtures.fixturePath(file.file)
    switch (file.error, file.fnv1a64) {
    case (nil, let hash?):
      let image = try STBImage(mediaPipeFile: path)
      let channels = ["GRAY8": 1, "SRGB": 3, "SRGBA": 4][file.format ?? ""]
      #expect([image.height, image.width, image.channels] == file.shape && image.channels == channels)
      #expect(ExifManifest.hash(image.pixels) == hash, "pixels differ from MediaPipe's")
    case ("ValueError", _):
      // Gray and alpha: stb_image reads it; MediaPipe refuses the channel count, as `image()` does.
      let image = try STBImage(mediaPipeFile: path)
      #expect(image.channels == 2)
      #expect(throws: ImageIOError.self) { try image.image() }
    default:
      #expect(file.error == "RuntimeError" || file.crash != nil)
      #expect(throws: ImageIOError.self) { try STBImage(mediaPipeFile: path) }
    }
  }

  /// The command line's `--decoder mediapipe-python` road, `DecodedImage(decoder:)`, shows a JPEG
  /// upright with the same pixels as MediaPipe's `create_from_file` (its Exif handled as an
  /// orientation, then applied), and ignores a PNG's eXIf as MediaPipe does.
  @Test(arguments: STBManifest.files.filter { $0.file.hasPrefix("exif/") && $0.fnv1a64 != nil })
  func decodedImageMatchesOnTheCommandLineRoad(_ file: STBManifest.File) throws {
    let decoded = try DecodedImage(contentsOfFile: Fixtures.fixturePath(file.file), decoder: .mediaPipePython)
    let upright = decoded.image.applyingOrientation()
    #expect([upright.height, upright.width, 3] == file.shape)
    #expect(ExifManifest.hash(upright.pixels) == file.fnv1a64, "upright pixels differ from MediaPipe's")
    if file.file.hasSuffix(".png") { #expect(decoded.exifOrientation == nil) }
  }

  /// Sizes past the limits are refused from the header, before any pixel is decoded; bytes that
  /// are no image, and an empty file, fail with stb_image's reason.
  @Test func refusesByTheHeaderAndSaysWhy() throws {
    let png = try Fixtures.bytes(atPath: Fixtures.fixturePath("codecs/png_rgb8.png"))
    #expect(throws: ImageIOError.tooManyPixels(format: .png, width: 48, height: 40, limit: 100, path: nil)) {
      try STBImage(encoded: png, limits: ImageLimits(maximumPixels: 100))
    }
    let bmp = try Fixtures.bytes(atPath: Fixtures.fixturePath("stb/bmp_rgb24.bmp"))
    #expect(throws: ImageIOError.self) { try STBImage(encoded: bmp, limits: ImageLimits(maximumPixels: 100)) }
    for bytes in [[], Array("not an image".utf8), [0xFF, 0xD8, 0xFF]] as [[UInt8]] {
      #expect {
        try STBImage(encoded: bytes)
      } throws: { error in
        guard case .decoderFailed(let decoder, let message, _) = error as? ImageIOError else { return false }
        return decoder == "stb_image" && !message.isEmpty
      }
    }
  }

  /// Every way of turning a picture, on a 3×2 gray image whose samples name their places.
  @Test func turnsAsMediaPipe() throws {
    let stored = try STBImage(width: 3, height: 2, channels: 1, pixels: [0, 1, 2, 3, 4, 5])
    let expected: [(MPImage.Orientation, Int, [UInt8])] = [
      (.up, 3, [0, 1, 2, 3, 4, 5]), (.upMirrored, 3, [2, 1, 0, 5, 4, 3]), (.down, 3, [5, 4, 3, 2, 1, 0]),
      (.downMirrored, 3, [3, 4, 5, 0, 1, 2]), (.leftMirrored, 2, [0, 3, 1, 4, 2, 5]),
      (.right, 2, [3, 0, 4, 1, 5, 2]), (.rightMirrored, 2, [5, 2, 4, 1, 3, 0]), (.left, 2, [2, 5, 1, 4, 0, 3]),
    ]
    for (orientation, width, pixels) in expected {
      let turned = stored.turned(by: orientation)
      #expect(turned.width == width && turned.pixels == pixels, "\(orientation)")
    }
  }
}
