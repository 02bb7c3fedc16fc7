import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTestSupport

/// Hostile input: truncations, random byte flips and headers claiming huge sizes. Every
/// attempt must end in an image or an `ImageIOError`; a trap, a hang or a libjpeg "warning"
/// that lets a damaged file through fails the run. Flips are seeded (SplitMix64), so a failure
/// reproduces from the printed seed.
// The limit turns a hang into a failure. It is generous because the clock runs while a test
// waits for a thread: in the parallel run, heavy suites held both cores past a 1-minute limit.
@Suite(.timeLimit(.minutes(minutesAllowed(10)))) struct RobustnessTests {
  /// 200 prefix lengths spread over the file, plus the last few bytes one at a time.
  static func prefixLengths(_ count: Int) -> [Int] {
    Array(Set((0..<200).map { $0 * count / 200 } + (1...8).map { count - $0 })).sorted()
  }

  /// Every strict prefix fails: shorter than the magic bytes it is an unknown format, longer
  /// it is truncated (PNG is read up to IEND, JPEG up to EOI).
  @Test(arguments: [
    "png_rgb8.png", "png_rgb8_interlaced.png", "png_rgba16.png", "png_palette4_trns.png",
    "jpeg_baseline.jpg", "jpeg_progressive.jpg", "jpeg_cmyk.jpg", "jpeg_restart.jpg",
  ])
  func everyPrefixFails(_ name: String) throws {
    let bytes = try CodecManifest.bytes(name)
    let magic = name.hasSuffix(".png") ? 8 : 3
    for length in Self.prefixLengths(bytes.count) {
      let prefix = Array(bytes[0..<length])
      let error = try requireThrows(ImageIOError.self, "prefix of \(length) of \(bytes.count) bytes") {
        try MPImage(encoded: prefix)
      }
      switch error {
      case .unknownFormat: #expect(length < magic, "prefix of \(length): \(error)")
      case .truncated: #expect(length >= magic)
      default: Issue.record("prefix of \(length) of \(bytes.count) bytes: \(error)")
      }
    }
  }

  /// A few hundred seeded damages of 1 to 4 bytes each. For PNG the chunk CRCs are repaired
  /// afterwards in half of the trials, so damage reaches zlib and the unfilterer too.
  @Test(arguments: ["png_rgb8.png", "png_palette8_interlaced.png", "jpeg_baseline.jpg", "jpeg_progressive.jpg"])
  func randomByteFlipsNeverCrash(_ name: String) throws {
    let original = try CodecManifest.bytes(name)
    var outcomes: [String: Int] = [:]
    for trial in 0..<300 {
      var random = RandomSource(seed: 0xC0DEC + UInt64(trial))
      var bytes = original
      for _ in 0..<(1 + random.int(in: 0..<4)) {
        let position = random.int(in: 0..<bytes.count)
        bytes[position] ^= UInt8(1 + random.int(in: 0..<255))
      }
      if name.hasSuffix(".png") && trial % 2 == 0 { bytes = repairingCRCs(bytes) }
      do {
        let image = try MPImage(encoded: bytes)
        #expect(image.pixels.count == image.width * image.height * 3, "trial \(trial)")
        outcomes["decoded", default: 0] += 1
      } catch let error as ImageIOError {
        let kind = String(describing: error).split(separator: ":").first.map(String.init) ?? ""
        outcomes[kind, default: 0] += 1
      } catch {
        Issue.record("trial \(trial): unexpected error \(error)")
      }
    }
    print("\(name) flips: \(outcomes.sorted { $0.key < $1.key })")
  }

  /// Sizes are checked from the header, before the pixels are allocated: these files would
  /// need gigabytes to terabytes.
  @Test func hugeClaimedSizesAreRefusedBeforeDecoding() throws {
    let limit = UInt32(MPImage.maximumDimension)
    for (width, height) in [(limit + 1, 1), (1, limit + 1), (100_000, 100_000), (0x7FFF_FFFF, 0x7FFF_FFFF)] {
      #expect(throws: ImageIOError.tooLarge(format: .png, width: Int(width), height: Int(height), path: nil)) {
        try PNG.decode(pngClaiming(width: width, height: height))
      }
    }
    // At the limit the size is accepted; the missing image data is what fails.
    let atLimit = try requireThrows(ImageIOError.self) { try PNG.decode(pngClaiming(width: limit, height: 1)) }
    #expect(atLimit == .corrupt(format: .png, message: "Not enough image data", path: nil))

    // JPEG: patch the SOF of a real file to the largest size JPEG allows.
    var jpeg = try CodecManifest.bytes("jpeg_baseline.jpg")
    let sof = try #require((2..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
    jpeg.replaceSubrange((sof + 5)..<(sof + 9), with: [0xFF, 0xDC, 0xFF, 0xDC])  // 65500 x 65500
    let error = try requireThrows(ImageIOError.self) { try MPImage(encoded: jpeg) }
    #expect(error == .tooLarge(format: .jpeg, width: 65500, height: 65500, path: nil))
    #expect(
      error.description == "JPEG data is 65500x65500 pixels, too large: each side must be at most "
        + "\(MPImage.maximumDimension)")
  }

  /// The total is capped too, from the header, at `ImageLimits.maximumPixels` unless the
  /// caller raises it: 9000 x 9000 is within each side's limit but past 2^26 pixels.
  @Test func totalPixelsAreCappedAndTheCapCanBeRaised() throws {
    let png = pngClaiming(width: 9000, height: 9000)
    let error = try requireThrows(ImageIOError.self) { try PNG.decode(png) }
    #expect(
      error
        == .tooManyPixels(format: .png, width: 9000, height: 9000, limit: ImageLimits.defaultMaximumPixels, path: nil))
    #expect(
      error.description
        == "PNG data is 9000x9000 pixels, too large: the limit is 67108864 pixels (ImageLimits.maximumPixels)")
    // Raised, the header passes and the missing pixel data is what fails.
    let raised = try requireThrows(ImageIOError.self) {
      try MPImage(encoded: png, limits: ImageLimits(maximumPixels: 81_000_000))
    }
    #expect(raised == .corrupt(format: .png, message: "Not enough image data", path: nil))
    // JPEG alike: the SOF of a real file patched to 9000 x 9000.
    var jpeg = try CodecManifest.bytes("jpeg_baseline.jpg")
    let sof = try #require((2..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
    jpeg.replaceSubrange((sof + 5)..<(sof + 9), with: [0x23, 0x28, 0x23, 0x28])
    #expect(throws: ImageIOError.tooManyPixels(format: .jpeg, width: 9000, height: 9000, limit: 1 << 26, path: nil)) {
      try JPEG.decode(jpeg)
    }
  }

  /// A device or a folder is not read as an image, and a FIFO with no writer reads as empty:
  /// no waiting for a writer, no reading a device without end.
  @Test func specialFilesAreRefusedAtOnce() throws {
    let fifo = NSTemporaryDirectory() + "visage-fifo-\(UUID().uuidString).png"
    #expect(mkfifo(fifo, 0o600) == 0)
    defer { unlink(fifo) }
    #expect(throws: ImageIOError.unknownFormat(path: fifo, leadingBytes: [])) { try MPImage(contentsOfFile: fifo) }
    for path in ["/dev/zero", NSTemporaryDirectory()] {
      let error = try requireThrows(ImageIOError.self) { try MPImage(contentsOfFile: path) }
      guard case .unreadableFile(path, _) = error else {
        Issue.record("\(path): \(error)")
        continue
      }
    }
  }
}
