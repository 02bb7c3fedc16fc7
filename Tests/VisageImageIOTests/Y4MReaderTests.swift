import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTestSupport

/// YUV4MPEG2 streams written byte by byte here, so every expected pixel follows from the
/// YCbCr formulas: limited-range Y 16 is black and 235 white; Cb = Cr = 128 is gray.
@Suite struct Y4MReaderTests {
  /// Writes `bytes` to a fresh temporary file and returns its path.
  static func file(_ bytes: [UInt8]) throws -> String {
    let path = NSTemporaryDirectory() + "visage-y4m-\(UUID().uuidString).y4m"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  static func header(_ text: String) -> [UInt8] { Array((text + "\n").utf8) }

  /// A 4x2 4:2:0 frame: the left half black, the right half white, no colour.
  static let grayFrame: [UInt8] = header("FRAME") + [16, 16, 235, 235, 16, 16, 235, 235] + [128, 128] + [128, 128]

  @Test func readsFramesUntilTheEnd() throws {
    let path = try Self.file(Self.header("YUV4MPEG2 W4 H2 F25:1 Ip A1:1 C420jpeg") + Self.grayFrame + Self.grayFrame)
    let reader = try Y4MReader(contentsOfFile: path)
    #expect(reader.width == 4 && reader.height == 2 && reader.frameRate == 25)
    for _ in 0..<2 {
      let frame = try #require(try reader.nextFrame())
      #expect(frame.width == 4 && frame.height == 2)
      #expect(
        frame.pixels == [UInt8]([0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255]) + [
          0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255,
        ])
    }
    #expect(try reader.nextFrame() == nil)
    #expect(reader.framesRead == 2)
  }

  /// A stream written with Windows line ends (`\r\n`) is read as if they were `\n`: its
  /// frame rate was reported as malformed ("got 'F25:1'", with an invisible carriage return).
  @Test func windowsLineEndsAreLineEnds() throws {
    let crlf = Array("YUV4MPEG2 W4 H2 F25:1 C420jpeg\r\nFRAME\r\n".utf8) + Self.grayFrame.dropFirst(6)
    let reader = try Y4MReader(contentsOfFile: Self.file(crlf))
    #expect(reader.frameRate == 25)
    #expect(try reader.nextFrame()?.pixels.prefix(6) == [0, 0, 0, 0, 0, 0])
  }

  /// BT.601 limited-range primaries (Y, Cb, Cr) = (81, 90, 240), (145, 54, 34), (41, 240, 110)
  /// are red, green and blue to within rounding; 4:4:4 keeps one chroma sample per pixel.
  @Test func convertsColourWithBT601() throws {
    let y: [UInt8] = [81, 145, 41]
    let cb: [UInt8] = [90, 54, 240]
    let cr: [UInt8] = [240, 34, 110]
    let path = try Self.file(Self.header("YUV4MPEG2 W3 H1 C444") + Self.header("FRAME") + y + cb + cr)
    let frame = try #require(try Y4MReader(contentsOfFile: path).nextFrame())
    let expected: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255]
    for (got, want) in zip(frame.pixels, expected) { #expect(abs(Int(got) - Int(want)) <= 3) }
  }

  @Test func fullRangeAndMonoAndTenBit() throws {
    // XCOLORRANGE=FULL: Y 0 and 255 are black and white as they are.
    let full = try Self.file(Self.header("YUV4MPEG2 W2 H1 Cmono XCOLORRANGE=FULL") + Self.header("FRAME") + [0, 255])
    #expect(try Y4MReader(contentsOfFile: full).nextFrame()?.pixels == [0, 0, 0, 255, 255, 255])
    // 10-bit samples are two bytes, little endian: 940 is limited-range white.
    let tenBit = try Self.file(
      Self.header("YUV4MPEG2 W2 H2 C420p10") + Self.header("FRAME") + [64, 0, 64, 0, 0xAC, 3, 0xAC, 3] + [0, 2] + [
        0, 2,
      ])
    #expect(
      try Y4MReader(contentsOfFile: tenBit).nextFrame()?.pixels == [0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255])
  }

  /// Odd sizes round the chroma planes up, as the format says.
  @Test func oddSizedFrames() throws {
    let path = try Self.file(
      Self.header("YUV4MPEG2 W3 H3 C420") + Self.header("FRAME") + [UInt8](repeating: 235, count: 9) + [
        128, 128, 128, 128,
      ] + [128, 128, 128, 128])
    #expect(try Y4MReader(contentsOfFile: path).nextFrame()?.pixels == [UInt8](repeating: 255, count: 27))
  }

  @Test func badStreamsGiveClearErrors() throws {
    func error(_ bytes: [UInt8]) throws -> Y4MError? {
      do {
        let reader = try Y4MReader(contentsOfFile: Self.file(bytes))
        while try reader.nextFrame() != nil {}
        return nil
      } catch let error as Y4MError { return error }
    }
    let truncated = Self.header("YUV4MPEG2 W4 H2") + Self.grayFrame + Self.grayFrame.dropLast(3)
    #expect(try error(truncated)?.description.contains("truncated inside frame 1") == true)
    #expect(try error(Array("RIFF....".utf8))?.description.contains("does not start with 'YUV4MPEG2 '") == true)
    // Another image format is named, as a decode names it.
    #expect(
      try error(Array("GIF89a\u{1}\u{0}\u{1}\u{0}\n".utf8))?.description.hasSuffix("(it looks like a GIF file)") == true
    )
    #expect(try error([])?.description.contains("empty") == true)
    #expect(try error(Self.header("YUV4MPEG2 W0 H2"))?.description.contains("positive W and H") == true)
    #expect(try error(Self.header("YUV4MPEG2 W30000 H30000"))?.description.contains("too large") == true)
    #expect(try error(Self.header("YUV4MPEG2 W2 H2 C411"))?.description.contains("C411") == true)
    #expect(
      try error(Self.header("YUV4MPEG2 W4 H2") + Self.header("FRAMX") + Self.grayFrame)?.description.contains(
        "does not start with 'FRAME'") == true)
    #expect(throws: Y4MError.self) { try Y4MReader(contentsOfFile: "/nonexistent/clip.y4m") }
  }

  /// The frame rate is two positive integers; the values that once trapped the command line
  /// (infinite, huge, overflowing, fractional) are a corrupt header, and a valid ratio is read
  /// as it is, however extreme, for the caller to judge.
  @Test(arguments: [
    "F1:inf", "F1:1e300", "F1:1e15", "F1e-300:1", "F1:99999999999999999999", "F0:1", "F1:0", "F-1:1", "F25", "F25:1:1",
    "F:1", "F30.5:1",
  ])
  func malformedFrameRatesAreCorrupt(_ field: String) throws {
    let path = try Self.file(Self.header("YUV4MPEG2 W4 H2 \(field)") + Self.grayFrame)
    let error = try requireThrows(Y4MError.self) { try Y4MReader(contentsOfFile: path) }
    #expect(error.description.contains("frame rate must be two positive integers"), "\(error)")
    let extreme = try Self.file(Self.header("YUV4MPEG2 W4 H2 F1:1000000000000000000") + Self.grayFrame)
    #expect(try Y4MReader(contentsOfFile: extreme).frameRate == 1e-18)
  }

  /// Header and FRAME lines longer than `maximumLineBytes` are refused whole: a long FRAME
  /// line was once cut at 4096 bytes and the rest read as pixels.
  @Test func longLinesAreRefusedNotCut() throws {
    let long = String(repeating: "X", count: Y4MReader.maximumLineBytes)
    let frame = try Self.file(
      Self.header("YUV4MPEG2 W4 H2") + Self.header("FRAME " + long) + Array(Self.grayFrame.dropFirst(6)))
    let reader = try Y4MReader(contentsOfFile: frame)
    let error = try requireThrows(Y4MError.self) { try reader.nextFrame() }
    #expect(error.description.contains("frame 0's FRAME line is longer than 4096 bytes"), "\(error)")
    let header = try Self.file(Self.header("YUV4MPEG2 W4 H2 " + long) + Self.grayFrame)
    #expect(throws: Y4MError.corrupt(source: "'\(header)'", message: "the stream header is longer than 4096 bytes")) {
      try Y4MReader(contentsOfFile: header)
    }
    // Just under the limit is read: "FRAME " plus the parameters fills 4096 bytes exactly.
    let fits = try Self.file(
      Self.header("YUV4MPEG2 W4 H2") + Self.header("FRAME " + long.dropFirst(6)) + Array(Self.grayFrame.dropFirst(6)))
    #expect(try Y4MReader(contentsOfFile: fits).nextFrame()?.width == 4)
  }

  /// The same pixel limit as PNG and JPEG, `ImageLimits.maximumPixels`, raised by an option.
  @Test func framesAreBoundedByTheImageLimits() throws {
    let path = try Self.file(Self.header("YUV4MPEG2 W9000 H9000 Cmono"))
    let error = try requireThrows(Y4MError.self) { try Y4MReader(contentsOfFile: path) }
    #expect(
      error.description.contains("at most 32768 a side and 67108864 pixels (ImageLimits.maximumPixels)"), "\(error)")
    let raised = try Y4MReader(contentsOfFile: path, limits: ImageLimits(maximumPixels: 81_000_000))
    #expect(try raised.nextFrame() == nil)
  }
}
