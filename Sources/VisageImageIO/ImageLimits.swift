import Visage

/// How large an image the decoders accept: PNG, JPEG and YUV4MPEG2 frames alike.
///
/// Sizes are checked from the header, before any memory for pixels is allocated, so a small
/// hostile file that claims a huge size costs nothing. Each side is bounded by
/// `MPImage.maximumDimension` (32768) whatever the limits; the total is bounded by
/// `maximumPixels`, which a program that really handles larger images may raise.
public struct ImageLimits: Sendable, Equatable {
  /// The default `maximumPixels`: 2^26, 67,108,864 pixels (192 MiB of RGB). 8K video frames
  /// have 33 M pixels and the largest phone photos about 50 M.
  public static let defaultMaximumPixels = 1 << 26

  /// The limits every decoder uses unless told otherwise.
  public static let `default` = ImageLimits()

  /// The most pixels, width × height, an image may have.
  public var maximumPixels: Int

  /// Limits with at most `maximumPixels` pixels an image.
  public init(maximumPixels: Int = ImageLimits.defaultMaximumPixels) {
    self.maximumPixels = maximumPixels
  }

  /// Whether an image of `width` × `height` pixels, each side already known to be at most
  /// `MPImage.maximumDimension` (so the product cannot overflow), is within the limits.
  func allows(width: Int, height: Int) -> Bool { width * height <= maximumPixels }
}
