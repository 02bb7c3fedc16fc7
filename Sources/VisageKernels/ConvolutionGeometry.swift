/// Everything about a 2-D convolution's shape that is known before it runs.
///
/// Shared by regular and depthwise convolution; for depthwise, the depth multiplier is
/// `output.channels / input.channels`.
public struct ConvolutionGeometry: Hashable, Sendable, CustomStringConvertible {
  /// Input dimensions.
  public var input: NHWC
  /// Output dimensions, derived from the input, filter, stride, dilation and padding.
  public var output: NHWC
  /// Filter rows.
  public var filterHeight: Int
  /// Filter columns.
  public var filterWidth: Int
  /// Step between output rows, in input rows.
  public var strideHeight: Int
  /// Step between output columns, in input columns.
  public var strideWidth: Int
  /// Step between filter taps along rows.
  public var dilationHeight: Int
  /// Step between filter taps along columns.
  public var dilationWidth: Int
  /// Zero rows before the first input row.
  public var padTop: Int
  /// Zero columns before the first input column.
  public var padLeft: Int

  /// Derives the output size and padding the way TFLite does for `padding`.
  public init(
    input: NHWC, outputChannels: Int, filterHeight: Int, filterWidth: Int,
    strideHeight: Int = 1, strideWidth: Int = 1, dilationHeight: Int = 1, dilationWidth: Int = 1,
    padding: Padding
  ) {
    let rows = Window(
      inputSize: input.height, filterSize: filterHeight, stride: strideHeight,
      dilation: dilationHeight, padding: padding)
    let columns = Window(
      inputSize: input.width, filterSize: filterWidth, stride: strideWidth,
      dilation: dilationWidth, padding: padding)
    self.input = input
    self.output = NHWC(
      batch: input.batch, height: rows.outputSize, width: columns.outputSize,
      channels: outputChannels)
    self.filterHeight = filterHeight
    self.filterWidth = filterWidth
    self.strideHeight = strideHeight
    self.strideWidth = strideWidth
    self.dilationHeight = dilationHeight
    self.dilationWidth = dilationWidth
    self.padTop = rows.padBefore
    self.padLeft = columns.padBefore
  }

  /// Values in one output channel's filter for a regular convolution (kh·kw·input channels).
  public var patchSize: Int { filterHeight * filterWidth * input.channels }

  /// Whether the input itself is the GEMM's left matrix (1×1, stride 1, no padding), so no
  /// im2col is needed.
  public var isPointwise: Bool {
    filterHeight == 1 && filterWidth == 1 && strideHeight == 1 && strideWidth == 1 && padTop == 0
      && padLeft == 0
  }

  /// Multiply-adds of a regular convolution with this geometry.
  public var multiplyAdds: Int { output.count * patchSize }

  /// A compact summary for test failures and benchmark tables.
  public var description: String {
    "\(input.height)x\(input.width)x\(input.channels) -> \(output.height)x\(output.width)x\(output.channels)"
      + " k\(filterHeight)x\(filterWidth) s\(strideHeight)x\(strideWidth)"
      + " d\(dilationHeight)x\(dilationWidth) pad\(padTop),\(padLeft)"
  }
}
