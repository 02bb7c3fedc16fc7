/// How a sliding window treats the image border, as in TFLite's `Padding` enum.
public enum Padding: Hashable, Sendable {
  /// Output size ceil(input / stride); zeros (or nothing, for pooling) beyond the border.
  case same
  /// Only windows that lie wholly inside the input.
  case valid
}

/// The output size and leading padding of one spatial axis of a sliding window.
///
/// Follows TFLite's `ComputePaddingHeightWidth` (kernels/padding.h): the total padding is
/// split with the smaller half before the data.
public struct Window: Hashable, Sendable {
  /// Number of output positions along the axis.
  public var outputSize: Int
  /// Padding inserted before the first input element.
  public var padBefore: Int

  /// Computes the window for one axis; the output size is at least zero.
  public init(inputSize: Int, filterSize: Int, stride: Int, dilation: Int = 1, padding: Padding) {
    let effectiveFilter = (filterSize - 1) * dilation + 1
    switch padding {
    case .same: outputSize = (inputSize + stride - 1) / stride
    case .valid: outputSize = max(0, (inputSize - effectiveFilter + stride) / stride)
    }
    let total = (outputSize - 1) * stride + effectiveFilter - inputSize
    padBefore = max(total, 0) / 2
  }
}
