/// The dimensions of a batch of images stored batch, row, column, channel (TFLite's layout).
public struct NHWC: Hashable, Sendable {
  /// Number of images.
  public var batch: Int
  /// Rows per image.
  public var height: Int
  /// Columns per row.
  public var width: Int
  /// Values per pixel.
  public var channels: Int

  /// Creates the dimensions of a batch of images.
  public init(batch: Int, height: Int, width: Int, channels: Int) {
    self.batch = batch
    self.height = height
    self.width = width
    self.channels = channels
  }

  /// Total number of values.
  @inlinable public var count: Int { batch * height * width * channels }

  /// The flat index of a value, as TFLite's `Offset(shape, b, y, x, c)`.
  @inlinable public func offset(_ b: Int, _ y: Int, _ x: Int, _ c: Int) -> Int {
    ((b * height + y) * width + x) * channels + c
  }
}
