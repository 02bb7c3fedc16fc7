import Visage

/// A caller's pixels as the C ABI passes them: rows `rowBytes` apart, 1, 3 or 4 bytes a pixel.
struct PixelSource {
  let base: UnsafeRawPointer
  let byteCount: Int
  let width: Int
  let height: Int
  let rowBytes: Int
  let format: MPImage.PixelFormat

  init(
    _ pixels: UnsafeRawPointer?, _ byteCount: Int64, _ width: Int64, _ height: Int64, _ rowBytes: Int64,
    _ channels: Int32
  ) throws {
    switch channels {
    case 1: format = .gray
    case 3: format = .rgb
    case 4: format = .rgba
    default: throw CallError("images must have 1, 3 or 4 channels, got \(channels)")
    }
    guard let pixels, byteCount >= 0 else { throw CallError("no pixels") }
    base = pixels
    self.byteCount = Int(byteCount)
    self.width = Int(clamping: width)
    self.height = Int(clamping: height)
    self.rowBytes = Int(clamping: rowBytes)
  }

  /// The image, its pixels copied by the library (which checks sizes and strides).
  func image(rotation: Int32) throws -> MPImage {
    try MPImage(
      width: width, height: height, bytesPerRow: rowBytes, format: format,
      buffer: UnsafeRawBufferPointer(start: base, count: byteCount), orientation: try Self.orientation(rotation))
  }

  /// Calls `body` with the image, read in place when the rows are packed RGB (numpy's usual
  /// layout), else copied into RGB rows by the library. The image must not outlive `body`.
  func withImage<Result>(rotation: Int32, _ body: (MPImage) throws -> Result) throws -> Result {
    let sides = 1...MPImage.maximumDimension  // so that the products below cannot overflow
    if format == .rgb, sides.contains(width), sides.contains(height), rowBytes == width * 3,
      width * height <= byteCount / 3
    {
      let bytes = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: width * height * 3)
      return try MPImage.withBorrowedPixels(
        width: width, height: height, rgb: bytes, orientation: try Self.orientation(rotation), body)
    }
    return try body(try image(rotation: rotation))
  }

  /// MediaPipe's `rotation_degrees` r turns the model's input by -r degrees, as iOS's
  /// orientations do: 90 is `.right` (iOS's -270), 270 is `.left` (-90).
  private static func orientation(_ rotation: Int32) throws -> MPImage.Orientation {
    guard rotation % 90 == 0 else { throw CallError("Expected rotation to be a multiple of 90°.") }
    let orientations: [MPImage.Orientation] = [.up, .right, .down, .left]
    return orientations[Int(((rotation % 360) + 360) % 360 / 90)]
  }
}
