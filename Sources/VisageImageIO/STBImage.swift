import CSTBImage
import Visage

/// An image file decoded by stb_image, as MediaPipe 1.2.2's Python `Image.create_from_file`
/// decodes it (`stbi_load_from_memory` with the file's own channel count).
///
/// stb_image v2.30 is compiled in from the header `Tools/stb-header` fetches (Debian trixie's
/// `libstb-dev`), else from the system's `<stb/stb_image.h>`; with neither, `isAvailable` is
/// false and decoding throws. It reads JPEG (baseline and progressive, gray, CMYK; a file cut
/// short is read as far as it goes, the rest filled as MediaPipe fills it), PNG (16-bit samples
/// cut to 8 by their high byte, palettes looked up, tRNS as alpha), BMP, GIF (its first
/// frame, always with alpha), PSD, TGA, HDR, PIC and PNM. Its pixels differ from
/// libjpeg-turbo's (`JPEG`) by up to 3 levels; on Tests/Fixtures/stb they equal MediaPipe's.
/// Exif is not read here: `DecodedImage(contentsOfFile:orientation:limits:decoder:)` with
/// `.mediaPipePython` turns a JPEG upright as MediaPipe does.
public struct STBImage: Sendable {
  /// Whether stb_image was compiled into this build.
  public static let isAvailable = visage_stb_available() != 0

  /// Pixels per row.
  public var width: Int
  /// Rows.
  public var height: Int
  /// Samples per pixel, as the file stores them: 1 gray, 2 gray and alpha, 3 RGB, 4 RGBA.
  public var channels: Int
  /// The samples, rows top to bottom, channels interleaved, 8 bits each.
  public var pixels: [UInt8]

  /// Pixels already decoded, `channels` (1 to 4) samples each.
  ///
  /// - Throws: `MPImageError.bufferSize` unless `pixels` holds width × height × channels bytes.
  public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) throws {
    guard width >= 0, height >= 0, (1...4).contains(channels), pixels.count == width * height * channels else {
      throw MPImageError.bufferSize(expected: max(width, 0) * max(height, 0) * channels, actual: pixels.count)
    }
    (self.width, self.height, self.channels, self.pixels) = (width, height, channels, pixels)
  }

  /// Decodes an image file held in memory.
  ///
  /// - Throws: `ImageIOError.tooLarge` or `.tooManyPixels` when the header claims more than
  ///   `MPImage.maximumDimension` a side or `limits` allow (checked before decoding; the format
  ///   is reported as PNG or JPEG when the bytes are one, else as `.decoderFailed`), and
  ///   `.decoderFailed` with stb_image's reason when it cannot decode the bytes or was not
  ///   compiled in.
  public init(encoded bytes: [UInt8], limits: ImageLimits = .default) throws {
    guard Self.isAvailable else {
      throw Self.failure("not compiled into this build (run Tools/stb-header, then build)")
    }
    guard bytes.count <= Int(Int32.max) else { throw Self.failure("more than 2 GiB of data") }
    var width: Int32 = 0
    var height: Int32 = 0
    var channels: Int32 = 0
    var reason: UnsafePointer<CChar>?
    // The size from the header alone first, so a small file claiming a huge one costs nothing.
    guard visage_stb_info(bytes, Int32(bytes.count), &width, &height, &channels, &reason) != 0 else {
      throw Self.failure(reason.map { String(cString: $0) } ?? "unknown")
    }
    try Self.check(width: Int(width), height: Int(height), bytes: bytes, limits: limits)
    guard let decoded = visage_stb_load(bytes, Int32(bytes.count), &width, &height, &channels, &reason) else {
      throw Self.failure(reason.map { String(cString: $0) } ?? "unknown")
    }
    defer { visage_stb_free(decoded) }
    self.width = Int(width)
    self.height = Int(height)
    self.channels = Int(channels)
    pixels = Array(UnsafeBufferPointer(start: decoded, count: self.width * self.height * self.channels))
  }

  /// The picture as RGB for the tasks: gray replicated, alpha dropped (MediaPipe's tasks drop
  /// it too). Gray and alpha (2 channels) is refused, as MediaPipe's `create_from_file` does.
  ///
  /// - Throws: `ImageIOError.decoderFailed` for 2 channels.
  public func image(orientation: MPImage.Orientation = .up) throws -> MPImage {
    let format: MPImage.PixelFormat
    switch channels {
    case 1: format = .gray
    case 3: format = .rgb
    case 4: format = .rgba
    default: throw Self.failure("\(channels) channels (gray and alpha), which MediaPipe's create_from_file refuses")
    }
    return try MPImage(
      width: width, height: height, bytesPerRow: width * channels, format: format, bytes: pixels,
      orientation: orientation)
  }

  static func failure(_ message: String) -> ImageIOError {
    .decoderFailed(decoder: "stb_image", message: message, path: nil)
  }

  /// Throws unless `width` × `height` is within `MPImage.maximumDimension` a side and `limits`.
  private static func check(width: Int, height: Int, bytes: [UInt8], limits: ImageLimits) throws {
    let format = ImageFormat(sniffing: bytes)
    if width > MPImage.maximumDimension || height > MPImage.maximumDimension {
      guard let format else {
        throw failure("\(width)x\(height) pixels, too large: each side must be at most \(MPImage.maximumDimension)")
      }
      throw ImageIOError.tooLarge(format: format, width: width, height: height, path: nil)
    }
    if !limits.allows(width: width, height: height) {
      guard let format else {
        throw failure("\(width)x\(height) pixels, too large: the limit is \(limits.maximumPixels) pixels")
      }
      throw ImageIOError.tooManyPixels(
        format: format, width: width, height: height, limit: limits.maximumPixels, path: nil)
    }
  }
}
