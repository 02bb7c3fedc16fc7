import CVisage
import Visage

/// A caller's pixels as the C interface passes them (`visage_image`): rows `rowBytes` apart,
/// 1, 3 or 4 bytes a pixel, stored turned by a multiple of 90°.
struct PixelSource {
  let base: UnsafeRawPointer
  let byteCount: Int
  let width: Int
  let height: Int
  let rowBytes: Int
  let format: MPImage.PixelFormat
  let orientation: MPImage.Orientation

  init(_ image: visage_image) throws {
    switch image.format {
    case VISAGE_GRAY8: format = .gray
    case VISAGE_SRGB: format = .rgb
    case VISAGE_SRGBA: format = .rgba
    default: throw CallError("images must have 1, 3 or 4 channels, got \(image.format.rawValue)")
    }
    guard let pixels = image.pixels, image.byte_count >= 0 else { throw CallError("no pixels") }
    base = pixels
    byteCount = Int(image.byte_count)
    width = Int(clamping: image.width)
    height = Int(clamping: image.height)
    rowBytes = Int(clamping: image.row_bytes)
    orientation = try Self.orientation(image.rotation_degrees)
  }

  /// The image, its pixels copied by the library (which checks sizes and strides).
  func image() throws -> MPImage {
    try MPImage(
      width: width, height: height, bytesPerRow: rowBytes, format: format,
      buffer: UnsafeRawBufferPointer(start: base, count: byteCount), orientation: orientation)
  }

  /// Calls `body` with the image, read in place when the rows are packed RGB (numpy's usual
  /// layout), else copied into RGB rows by the library. The image must not outlive `body`.
  func withImage<Result>(_ body: (MPImage) throws -> Result) throws -> Result {
    let sides = 1...MPImage.maximumDimension  // so that the products below cannot overflow
    if format == .rgb, sides.contains(width), sides.contains(height), rowBytes == width * 3,
      width * height <= byteCount / 3
    {
      let bytes = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: width * height * 3)
      return try MPImage.withBorrowedPixels(
        width: width, height: height, rgb: bytes, orientation: orientation, body)
    }
    return try body(try image())
  }

  /// MediaPipe's `rotation_degrees` r turns the model's input by -r degrees, as iOS's
  /// orientations do: 90 is `.right` (iOS's -270), 270 is `.left` (-90).
  private static func orientation(_ rotation: Int32) throws -> MPImage.Orientation {
    guard rotation % 90 == 0 else { throw CallError("Expected rotation to be a multiple of 90°.") }
    let orientations: [MPImage.Orientation] = [.up, .right, .down, .left]
    return orientations[Int(((rotation % 360) + 360) % 360 / 90)]
  }
}
