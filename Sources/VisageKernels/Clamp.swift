/// A fused activation expressed as the closed interval outputs are clamped to.
///
/// TFLite's fused activations NONE, RELU, RELU_N1_TO_1 and RELU6 are all clamps
/// (`CalculateActivationRange` in TFLite's kernel_util).
public struct Clamp: Hashable, Sendable {
  /// The smallest value an output may take.
  public var lowerBound: Float
  /// The largest value an output may take.
  public var upperBound: Float

  /// Creates a clamp to `lowerBound...upperBound`.
  public init(lowerBound: Float, upperBound: Float) {
    self.lowerBound = lowerBound
    self.upperBound = upperBound
  }

  /// No clamping.
  public static let none = Clamp(lowerBound: -.infinity, upperBound: .infinity)
  /// max(0, x).
  public static let relu = Clamp(lowerBound: 0, upperBound: .infinity)
  /// min(max(-1, x), 1).
  public static let reluN1To1 = Clamp(lowerBound: -1, upperBound: 1)
  /// min(max(0, x), 6).
  public static let relu6 = Clamp(lowerBound: 0, upperBound: 6)

  /// Whether this clamp leaves every value unchanged.
  public var isNone: Bool { lowerBound == -.infinity && upperBound == .infinity }

  /// Applies the clamp to one value, the way TFLite's `ActivationFunctionWithMinMax` does.
  @inlinable @inline(__always) public func callAsFunction(_ x: Float) -> Float {
    min(max(x, lowerBound), upperBound)
  }

  /// Applies the clamp to eight values at once. Always inlined: as a call, the vector
  /// crosses the ABI in two halves and a `vzeroupper` follows, in the innermost loops.
  @inlinable @inline(__always) public func callAsFunction(_ x: SIMD8<Float>) -> SIMD8<Float> {
    lanewiseMin(lanewiseMax(x, Vector(repeating: lowerBound)), Vector(repeating: upperBound))
  }
}
