import RealModule

/// The one-input functions TFLite applies value by value.
public enum UnaryFunction: String, Hashable, Sendable, CaseIterable {
  /// max(0, x).
  case relu
  /// min(max(0, x), 6).
  case relu6
  /// 1 / (1 + e^-x), with TFLite's saturation cut-offs.
  case logistic
  /// -x.
  case negate
  /// √x.
  case squareRoot
  /// 1 / √x.
  case reciprocalSquareRoot
  /// tanh(x).
  case tanh

  /// Applies the function to one value, as TFLite's reference kernel does.
  @inlinable public func callAsFunction(_ x: Float) -> Float {
    switch self {
    case .relu: return max(0, x)
    case .relu6: return min(max(0, x), 6)
    case .logistic:
      // reference_ops::Logistic: saturate where 1 + e^-x is 1 or e^x is the whole answer.
      if x > 16.619047164916992188 { return 1 }
      if x < -9 { return .exp(x) }
      return 1 / (1 + .exp(-x))
    case .negate: return -x
    case .squareRoot: return x.squareRoot()
    case .reciprocalSquareRoot: return 1 / x.squareRoot()
    case .tanh: return .tanh(x)
    }
  }
}

/// The two-input functions TFLite applies value by value, with broadcasting.
public enum BinaryFunction: String, Hashable, Sendable, CaseIterable {
  /// a + b.
  case add
  /// a − b.
  case subtract
  /// a · b.
  case multiply
  /// a / b.
  case divide
  /// (a − b)².
  case squaredDifference
  /// a where a ≥ 0, else a · b (b is the learned slope; TFLite's PRELU).
  case prelu
  /// max(a, b).
  case maximum
  /// min(a, b).
  case minimum

  /// Applies the function to one pair.
  @inlinable public func callAsFunction(_ a: Float, _ b: Float) -> Float {
    switch self {
    case .add: return a + b
    case .subtract: return a - b
    case .multiply: return a * b
    case .divide: return a / b
    case .squaredDifference:
      let d = a - b
      return d * d
    case .prelu: return a >= 0 ? a : a * b
    case .maximum: return max(a, b)
    case .minimum: return min(a, b)
    }
  }
}
