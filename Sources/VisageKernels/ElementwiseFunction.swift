import RealModule

/// The arithmetic the elementwise functions are written in, for one value (`Float`) and for
/// eight lanes (`Vector`) alike: each function below is written once, and the reference loop,
/// the vector loop and its scalar tail all run that one body.
public protocol Lanes {
  /// Every lane set to `value`.
  init(all value: Float)
  static func + (a: Self, b: Self) -> Self
  static func - (a: Self, b: Self) -> Self
  static func * (a: Self, b: Self) -> Self
  static func / (a: Self, b: Self) -> Self
  static prefix func - (a: Self) -> Self
  /// The square root of each lane.
  func squareRoot() -> Self
  /// Each lane rounded to an integral value by `rule`.
  func rounded(_ rule: FloatingPointRoundingRule) -> Self
  /// The larger lane: `b` where `a < b`, else `a` (one select instruction on vectors; the name
  /// keeps clear of the standard library's `Float.maximum`, which treats NaN differently).
  static func laneMax(_ a: Self, _ b: Self) -> Self
  /// The smaller lane: `b` where `b < a`, else `a`.
  static func laneMin(_ a: Self, _ b: Self) -> Self
  /// `replacement` where `x < 0`, else `x`, lane by lane.
  static func replacingNegative(_ x: Self, with replacement: Self) -> Self
  /// `scalar` applied to each lane: for functions with no vector form (`exp`, `tanh`).
  func map(_ scalar: (Float) -> Float) -> Self
}

extension Float: Lanes {
  @inlinable @inline(__always) public init(all value: Float) { self = value }
  @inlinable @inline(__always) public static func laneMax(_ a: Float, _ b: Float) -> Float { a < b ? b : a }
  @inlinable @inline(__always) public static func laneMin(_ a: Float, _ b: Float) -> Float { b < a ? b : a }
  @inlinable @inline(__always)
  public static func replacingNegative(_ x: Float, with replacement: Float) -> Float { x < 0 ? replacement : x }
  @inlinable @inline(__always) public func map(_ scalar: (Float) -> Float) -> Float { scalar(self) }
}

extension Vector: Lanes {
  @inlinable @inline(__always) public init(all value: Float) { self.init(repeating: value) }
  @inlinable @inline(__always) public static func laneMax(_ a: Vector, _ b: Vector) -> Vector { lanewiseMax(a, b) }
  @inlinable @inline(__always) public static func laneMin(_ a: Vector, _ b: Vector) -> Vector { lanewiseMin(a, b) }
  @inlinable @inline(__always)
  public static func replacingNegative(_ x: Vector, with replacement: Vector) -> Vector {
    x.replacing(with: replacement, where: x .< Vector())
  }
  @inlinable @inline(__always)
  public func map(_ scalar: (Float) -> Float) -> Vector {
    var result = self
    for lane in indices { result[lane] = scalar(self[lane]) }
    return result
  }
}

/// The one-input functions TFLite applies value by value. The raw value is TFLite's builtin
/// name, which the model decoder looks each function up by.
///
/// A new function is a case here and its body in `callAsFunction(_:)`; the kernels, the
/// operator and the decoder take it from there (docs/runtime.md).
public enum UnaryFunction: String, Hashable, Sendable, CaseIterable {
  /// max(0, x).
  case relu = "RELU"
  /// min(max(0, x), 6).
  case relu6 = "RELU6"
  /// 1 / (1 + e^-x), with TFLite's saturation cut-offs.
  case logistic = "LOGISTIC"
  /// -x.
  case negate = "NEG"
  /// √x.
  case squareRoot = "SQRT"
  /// 1 / √x.
  case reciprocalSquareRoot = "RSQRT"
  /// tanh(x).
  case tanh = "TANH"

  /// Applies the function to one value or to eight lanes, as TFLite's reference kernel does
  /// to each value.
  @inlinable @inline(__always)
  public func callAsFunction<L: Lanes>(_ x: L) -> L {
    switch self {
    case .relu: .laneMax(x, L(all: 0))
    case .relu6: .laneMin(.laneMax(x, L(all: 0)), L(all: 6))
    case .logistic: x.map(Self.logistic)
    case .negate: -x
    case .squareRoot: x.squareRoot()
    case .reciprocalSquareRoot: L(all: 1) / x.squareRoot()
    case .tanh: x.map { .tanh($0) }
    }
  }

  /// reference_ops::Logistic: saturates where 1 + e^-x is 1 or e^x is the whole answer.
  @usableFromInline static func logistic(_ x: Float) -> Float {
    if x > 16.619047164916992188 { return 1 }
    if x < -9 { return .exp(x) }
    return 1 / (1 + .exp(-x))
  }
}

/// The two-input functions TFLite applies value by value, with broadcasting. The raw value
/// is TFLite's builtin name, which the model decoder looks each function up by.
///
/// A new function is a case here and its body in `callAsFunction(_:_:)`; the kernels, the
/// operator and the decoder take it from there (docs/runtime.md).
public enum BinaryFunction: String, Hashable, Sendable, CaseIterable {
  /// a + b.
  case add = "ADD"
  /// a − b.
  case subtract = "SUB"
  /// a · b.
  case multiply = "MUL"
  /// a / b.
  case divide = "DIV"
  /// (a − b)².
  case squaredDifference = "SQUARED_DIFFERENCE"
  /// a where a ≥ 0, else a · b (b is the learned slope; TFLite's PRELU).
  case prelu = "PRELU"
  /// max(a, b).
  case maximum = "MAXIMUM"
  /// min(a, b).
  case minimum = "MINIMUM"

  /// Applies the function to one pair of values or of eight lanes.
  @inlinable @inline(__always)
  public func callAsFunction<L: Lanes>(_ a: L, _ b: L) -> L {
    switch self {
    case .add: a + b
    case .subtract: a - b
    case .multiply: a * b
    case .divide: a / b
    case .squaredDifference: (a - b) * (a - b)
    case .prelu: .replacingNegative(a, with: a * b)
    case .maximum: .laneMax(a, b)
    case .minimum: .laneMin(a, b)
    }
  }
}
