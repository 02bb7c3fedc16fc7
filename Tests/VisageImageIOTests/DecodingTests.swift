import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTestSupport

/// Every fixture decodes to the pixels the fixture script derived for it, the same way from a
/// file and from memory; broken files fail with the error the manifest names.
struct DecodingTests {
  @Test func manifestLoads() throws {
    let manifest = try #require(CodecManifest.shared, "cannot read Tests/Fixtures/codecs/manifest.json")
    #expect(manifest.decode.count >= 30)
    #expect(manifest.fail.count >= 8)
  }

  @Test(arguments: CodecManifest.shared?.decode ?? [])
  func decodesToExpectedPixels(_ fixture: CodecManifest.Decodable) throws {
    let path = CodecManifest.path(fixture.file)
    let image = try MPImage(contentsOfFile: path)
    #expect(image.width == fixture.width)
    #expect(image.height == fixture.height)
    #expect(image.orientation == .up)
    let expected = try CodecManifest.bytes(fixture.expected)
    #expect(image.pixels.count == fixture.width * fixture.height * 3)
    let difference = maxDifference(image.pixels, expected)
    #expect(difference <= fixture.tolerance, "\(fixture.file) (\(fixture.about)): max difference \(difference)")

    let bytes = try CodecManifest.bytes(fixture.file)
    let fromMemory = try MPImage(encoded: bytes)
    #expect(fromMemory.pixels == image.pixels)
    #expect(fromMemory.width == image.width && fromMemory.height == image.height)
    #expect(try decodeDirectly(fixture.file, bytes).pixels == image.pixels)
  }

  @Test(arguments: CodecManifest.shared?.fail ?? [])
  func brokenFilesFail(_ fixture: CodecManifest.Failing) throws {
    let path = CodecManifest.path(fixture.file)
    let format: ImageFormat = fixture.file.hasSuffix(".png") ? .png : .jpeg
    let error = try requireThrows(ImageIOError.self, "\(fixture.about)") {
      try MPImage(contentsOfFile: path)
    }
    #expect(error.path == path)
    #expect(error.description.contains(path), "\(error)")
    switch (fixture.error, error) {
    case ("truncated", .truncated(let f, _, _)), ("corrupt", .corrupt(let f, _, _)):
      #expect(f == format)
    case ("tooLarge", .tooLarge(let f, let width, let height, _)):
      #expect(f == format && width == fixture.width && height == fixture.height)
      #expect(error.description.contains("\(MPImage.maximumDimension)"))
    default:
      Issue.record("\(fixture.file): expected \(fixture.error), got \(error)")
    }
    // From memory: the same error without a path.
    let bytes = try CodecManifest.bytes(fixture.file)
    let inMemory = try requireThrows(ImageIOError.self) { try MPImage(encoded: bytes) }
    #expect(inMemory.path == nil)
    #expect(
      String(describing: inMemory)
        == String(describing: error).replacingOccurrences(
          of: "\(format) image '\(path)'", with: "\(format) data"))
    print("\(fixture.file): \(error)")
  }

  @Test func codecMessagesAreKept() throws {
    let crc = try requireThrows(ImageIOError.self) {
      try MPImage(contentsOfFile: CodecManifest.path("png_bad_crc.png"))
    }
    #expect(crc.description.contains("CRC error"), "\(crc)")
    let cut = try requireThrows(ImageIOError.self) {
      try JPEG.decode(CodecManifest.bytes("jpeg_truncated.jpg"))
    }
    #expect(cut == .truncated(format: .jpeg, message: "Premature end of JPEG file", path: nil))
    let marker = try requireThrows(ImageIOError.self) {
      try JPEG.decode(CodecManifest.bytes("jpeg_cut_with_eoi.jpg"))
    }
    #expect(marker.description.contains("premature end of data segment"), "\(marker)")
  }

  @Test func eachDecoderRefusesTheOtherFormat() throws {
    let png = try CodecManifest.bytes("png_rgb8.png")
    let jpeg = try CodecManifest.bytes("jpeg_baseline.jpg")
    let notJPEG = try requireThrows(ImageIOError.self) { try JPEG.decode(png) }
    #expect(notJPEG.description.contains("Not a JPEG file"), "\(notJPEG)")
    let notPNG = try requireThrows(ImageIOError.self) { try PNG.decode(jpeg) }
    #expect(notPNG.description.contains("Not a PNG file"), "\(notPNG)")
    #expect(throws: ImageIOError.truncated(format: .png, message: "unexpected end of data", path: nil)) {
      try PNG.decode([])
    }
    #expect(throws: ImageIOError.corrupt(format: .jpeg, message: "Empty input file", path: nil)) {
      try JPEG.decode([])
    }
  }

  @Test func orientationIsKept() throws {
    let path = CodecManifest.path("png_gray8.png")
    #expect(try MPImage(contentsOfFile: path, orientation: .right).orientation == .right)
    let bytes = try CodecManifest.bytes("jpeg_gray.jpg")
    #expect(try MPImage(encoded: bytes, orientation: .left).orientation == .left)
  }

  // MARK: Formats and files

  @Test func formatsAreSniffedByMagicBytes() {
    #expect(ImageFormat(sniffing: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
    #expect(ImageFormat(sniffing: [0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
    #expect(ImageFormat(sniffing: [0xFF, 0xD8]) == nil)
    #expect(ImageFormat(sniffing: [0x89, 0x50, 0x4E, 0x47]) == nil)
    #expect(ImageFormat(sniffing: [UInt8]()) == nil)
    #expect(ImageFormat(sniffing: Array("GIF89a".utf8)) == nil)
  }

  @Test func unknownFormatsAreNamed() throws {
    let gif = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0]
    let error = try requireThrows(ImageIOError.self) { try MPImage(encoded: gif) }
    #expect(error == .unknownFormat(path: nil, leadingBytes: gif))
    #expect(
      error.description
        == "the data is not a PNG or JPEG image (it looks like a GIF file): it starts with "
        + "47 49 46 38 39 61 01 00; only PNG and JPEG are supported")
    let text = try requireThrows(ImageIOError.self) { try MPImage(encoded: Array("hello".utf8)) }
    #expect(
      text.description
        == "the data is not a PNG or JPEG image: it starts with 68 65 6C 6C 6F; only PNG and JPEG are supported")
    let empty = try requireThrows(ImageIOError.self) { try MPImage(encoded: []) }
    #expect(empty.description == "the data is empty: expected a PNG or JPEG image")
    let webp = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8)
    let webpError = try requireThrows(ImageIOError.self) { try MPImage(encoded: webp) }
    #expect(webpError.description.contains("WebP"))
  }

  @Test func unknownFormatInAFileNamesThePath() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("visage-\(UUID()).png").path
    try Data("not an image at all".utf8).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let error = try requireThrows(ImageIOError.self) { try MPImage(contentsOfFile: path) }
    #expect(error.path == path)
    #expect(error.description.hasPrefix("'\(path)' is not a PNG or JPEG image"), "\(error)")
  }

  @Test func missingFileNamesThePath() throws {
    let path = "/nonexistent/visage/face.png"
    let error = try requireThrows(ImageIOError.self) { try MPImage(contentsOfFile: path) }
    #expect(error == .unreadableFile(path: path, reason: "No such file or directory"))
    #expect(error.description == "cannot read image file '\(path)': No such file or directory")
  }

  @Test func directoryIsNotAnImage() throws {
    let path = Fixtures.fixturePath("codecs")
    let error = try requireThrows(ImageIOError.self) { try MPImage(contentsOfFile: path) }
    #expect(error == .unreadableFile(path: path, reason: "Is a directory"))
  }

  @Test func emptyFileIsNamed() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("visage-\(UUID()).jpg").path
    try Data().write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let error = try requireThrows(ImageIOError.self) { try MPImage(contentsOfFile: path) }
    #expect(error.description == "'\(path)' is empty: expected a PNG or JPEG image")
  }
}
