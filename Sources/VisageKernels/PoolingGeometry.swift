/// The shape of a 2-D pooling window over NHWC data.
public struct PoolingGeometry: Hashable, Sendable {
  /// Input dimensions.
  public var input: NHWC
  /// Output dimensions (same batch and channels as the input).
  public var output: NHWC
  /// Window rows.
  public var filterHeight: Int
  /// Window columns.
  public var filterWidth: Int
  /// Step between output rows, in input rows.
  public var strideHeight: Int
  /// Step between output columns, in input columns.
  public var strideWidth: Int
  /// Rows of padding before the input (padding is never part of a window's maximum).
  public var padTop: Int
  /// Columns of padding before the input.
  public var padLeft: Int

  /// Derives the output size and padding the way TFLite does for `padding`.
  public init(
    input: NHWC, filterHeight: Int, filterWidth: Int, strideHeight: Int, strideWidth: Int,
    padding: Padding
  ) {
    let rows = Window(
      inputSize: input.height, filterSize: filterHeight, stride: strideHeight, padding: padding)
    let columns = Window(
      inputSize: input.width, filterSize: filterWidth, stride: strideWidth, padding: padding)
    self.input = input
    self.output = NHWC(
      batch: input.batch, height: rows.outputSize, width: columns.outputSize,
      channels: input.channels)
    self.filterHeight = filterHeight
    self.filterWidth = filterWidth
    self.strideHeight = strideHeight
    self.strideWidth = strideWidth
    self.padTop = rows.padBefore
    self.padLeft = columns.padBefore
  }
}
