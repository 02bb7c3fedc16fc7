import VisageKernels

/// One operation of a graph: it computes a single output tensor from its inputs.
///
/// Operators are format-agnostic values; the TFLite decoder builds them with every integer
/// parameter already turned into a field, so their inputs are float tensors only.
public protocol Operator: Sendable {
  /// The TFLite builtin name, such as `CONV_2D`, for errors and profiles.
  var name: String { get }

  /// The output shape for inputs of these shapes; throws when they do not fit.
  func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape

  /// Settles everything about one execution of this operator and returns the work to do.
  ///
  /// Called once, when the interpreter is built; the returned step runs every inference.
  func prepare(_ context: OperatorContext) throws(RuntimeError) -> Step

  /// Multiply-adds per execution, for `inspect` and benchmarks (0 where negligible).
  func multiplyAdds(_ inputs: [Shape]) -> Int
}

extension Operator {
  /// Most operators do no multiply-adds worth counting.
  public func multiplyAdds(_ inputs: [Shape]) -> Int { 0 }
}

/// The work of one operator, with every address and parameter already bound.
public typealias Step = () -> Void

/// What an operator knows when it is prepared.
public struct OperatorContext {
  /// Shapes of the inputs, in the node's order.
  public let inputShapes: [Shape]
  /// Shape of the output, as `outputShape` computed it.
  public let outputShape: Shape
  /// The value of each input that is a constant, nil for activations.
  public let constants: [Tensor?]
  /// Where each input lives for the interpreter's lifetime.
  public let inputs: InputPointers
  /// Where the output goes.
  public let output: UnsafeMutablePointer<Float>
  /// Which kernels to use.
  public let implementation: Implementation
  /// Threads the operator may spread its work over; nil or one thread keeps it on the caller.
  public let pool: ThreadPool?

  /// The constant value of input `index`, or an error naming what was expected.
  public func constant(_ index: Int, _ what: String) throws(RuntimeError) -> Tensor {
    guard index < constants.count, let value = constants[index] else {
      throw .invalidOperator("\(what) (input \(index)) must be a constant")
    }
    return value
  }
}

/// Where each input of a node lives, for the interpreter's lifetime.
///
/// A constant gets memory of its own only when an operator asks for its address here: the
/// convolutions pack their filters from `OperatorContext.constants` instead, and copies that
/// no step reads were most of a model's load time and of each task copy's memory.
public struct InputPointers: RandomAccessCollection, ExpressibleByArrayLiteral {
  private let pointer: (Int) -> UnsafePointer<Float>
  public let startIndex = 0
  public let endIndex: Int

  /// `count` inputs, input `i` at `pointer(i)` (asked for once per access).
  init(count: Int, pointer: @escaping (Int) -> UnsafePointer<Float>) {
    self.endIndex = count
    self.pointer = pointer
  }

  /// Inputs at addresses known beforehand.
  public init(arrayLiteral pointers: UnsafePointer<Float>...) {
    self.init(count: pointers.count) { pointers[$0] }
  }

  public subscript(position: Int) -> UnsafePointer<Float> { pointer(position) }
}
