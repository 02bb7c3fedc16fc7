import Testing
import Visage
import VisageImageIO
import VisageTestSupport

/// `PNG.encode` writes 8-bit RGB, non-interlaced, and decoding gives back the same pixels.
struct EncodingTests {
  @Test(arguments: [(1, 1), (1, 7), (7, 1), (33, 17), (64, 48), (300, 2)])
  func randomImagesRoundTrip(_ width: Int, _ height: Int) throws {
    var random = RandomSource(seed: UInt64(width * 1000 + height))
    let pixels = (0..<(width * height * 3)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    let image = try MPImage(width: width, height: height, rgb: pixels)
    let encoded = try PNG.encode(image)
    let decoded = try MPImage(encoded: encoded)
    #expect(decoded.width == width && decoded.height == height)
    #expect(decoded.pixels == pixels)
  }

  @Test(arguments: ["png_rgba16.png", "png_palette8_interlaced.png", "jpeg_cmyk.jpg", "jpeg_progressive.jpg"])
  func decodedFixturesRoundTrip(_ name: String) throws {
    let image = try MPImage(contentsOfFile: CodecManifest.path(name))
    let decoded = try PNG.decode(PNG.encode(image))
    #expect(decoded.pixels == image.pixels && decoded.width == image.width && decoded.height == image.height)
  }

  @Test func headerIsEightBitRGBNonInterlaced() throws {
    let image = try MPImage(width: 3, height: 2, rgb: Array(0..<18), orientation: .down)
    let bytes = try PNG.encode(image)
    #expect(ImageFormat(sniffing: bytes) == .png)
    #expect(Array(bytes[12..<16]) == Array("IHDR".utf8))
    #expect(Array(bytes[16..<24]) == [0, 0, 0, 3, 0, 0, 0, 2])
    #expect(Array(bytes[24..<29]) == [8, 2, 0, 0, 0], "bit depth, colour type, compression, filter, interlace")
    #expect(Array(bytes.suffix(12)) == pngChunk("IEND", []))
    // Orientation is not stored: the pixels are written as they are.
    #expect(try PNG.decode(bytes).orientation == .up)
  }
}
