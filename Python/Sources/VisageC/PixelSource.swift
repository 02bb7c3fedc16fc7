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

  /// The image, its RGB rows copied into `storage`, whose memory is reused when no image holds
  /// it any more: a copy per frame instead of an allocation and a copy. Anything but plain RGB
  /// rows that fit the buffer goes to `image(rotation:)`, which reports what is wrong.
  func image(rotation: Int32, reusing storage: inout [UInt8]) throws -> MPImage {
    let packed = width * 3
    let span = rowBytes.multipliedReportingOverflow(by: height - 1)
    guard format == .rgb, (1...MPImage.maximumDimension).contains(width),
      (1...MPImage.maximumDimension).contains(height), rowBytes >= packed, !span.overflow,
      span.partialValue <= byteCount - packed
    else { return try image(rotation: rotation) }
    if storage.count != packed * height { storage = [UInt8](repeating: 0, count: packed * height) }
    storage.withUnsafeMutableBytes { out in
      for y in 0..<height {
        (out.baseAddress! + y * packed).copyMemory(from: base + y * rowBytes, byteCount: packed)
      }
    }
    return try MPImage(width: width, height: height, rgb: storage, orientation: try Self.orientation(rotation))
  }

  /// MediaPipe's `rotation_degrees` r turns the model's input by -r degrees, as iOS's
  /// orientations do: 90 is `.right` (iOS's -270), 270 is `.left` (-90).
  private static func orientation(_ rotation: Int32) throws -> MPImage.Orientation {
    guard rotation % 90 == 0 else { throw CallError("Expected rotation to be a multiple of 90°.") }
    let orientations: [MPImage.Orientation] = [.up, .right, .down, .left]
    return orientations[Int(((rotation % 360) + 360) % 360 / 90)]
  }
}
