import Visage

/// Which decoder turns a PNG or JPEG file into pixels.
public enum ImageDecoder: String, Sendable, CaseIterable {
  /// libpng and libjpeg-turbo (ImageIO on Apple platforms): `PNG` and `JPEG`. Pillow's pixels
  /// and Visage's default everywhere.
  case standard
  /// stb_image as MediaPipe 1.2.2's Python `Image.create_from_file` uses it (`STBImage`):
  /// JPEG pixels up to 3 levels from libjpeg-turbo's, equal to MediaPipe's; a PNG's eXIf
  /// orientation is not read, as MediaPipe reads Exif from JPEGs only.
  case mediaPipePython = "mediapipe-python"
}

extension STBImage {
  /// Reads a file as MediaPipe 1.2.2's Python `Image.create_from_file` does: any format
  /// stb_image reads, and a JPEG turned upright by its Exif orientation tag (mirrored ones
  /// too) on the pixels, so a 256×192 photo tagged 6 comes back 192×256.
  ///
  /// - Throws: `ImageIOError.unreadableFile` if the file cannot be read (as
  ///   `MPImage(contentsOfFile:)`), or an error of `init(encoded:limits:)`.
  public init(mediaPipeFile path: String, limits: ImageLimits = .default) throws {
    let bytes = try ImageFile.bytes(atPath: path)
    do {
      self = try STBImage(mediaPipeEncoded: bytes, limits: limits)
    } catch let error as ImageIOError {
      throw error.naming(path)
    }
  }

  /// Decodes a file held in memory as `init(mediaPipeFile:limits:)` reads one.
  public init(mediaPipeEncoded bytes: [UInt8], limits: ImageLimits = .default) throws {
    self = try STBImage(encoded: bytes, limits: limits)
    if let tag = ExifOrientation.readAsMediaPipe(fromFile: bytes) {
      self = turned(by: tag)
    }
  }

  /// The pixels turned upright from stored pixels that `orientation` describes, as MediaPipe's
  /// `CreateImageFrameWithOrientation` turns them: each output pixel (x, y) is read from the
  /// stored pixel its Exif tag names.
  public func turned(by orientation: MPImage.Orientation) -> STBImage {
    let (w, h) = (width, height)
    let source: (Int, Int) -> (Int, Int)
    switch orientation {
    case .up: return self
    case .upMirrored: source = { x, y in (w - 1 - x, y) }
    case .down: source = { x, y in (w - 1 - x, h - 1 - y) }
    case .downMirrored: source = { x, y in (x, h - 1 - y) }
    case .leftMirrored: source = { x, y in (y, x) }
    case .right: source = { x, y in (y, h - 1 - x) }
    case .rightMirrored: source = { x, y in (w - 1 - y, h - 1 - x) }
    case .left: source = { x, y in (w - 1 - y, x) }
    }
    // Exif 5 to 8 (every orientation that turns by a quarter) swap the sides.
    let swaps = orientation.exifValue >= 5
    var out = self
    (out.width, out.height) = swaps ? (h, w) : (w, h)
    out.pixels.withUnsafeMutableBufferPointer { target in
      pixels.withUnsafeBufferPointer { stored in
        for y in 0..<out.height {
          for x in 0..<out.width {
            let (sx, sy) = source(x, y)
            let from = (sy * w + sx) * channels
            let to = (y * out.width + x) * channels
            for c in 0..<channels { target[to + c] = stored[from + c] }
          }
        }
      }
    }
    return out
  }
}
