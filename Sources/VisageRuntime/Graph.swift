/// A computation: tensors, the constants among them, and the operators that fill the rest.
///
/// Tensor ids index `tensors`; a TFLite model keeps its own tensor indices, so errors and
/// fingerprints name the same tensors as the file does.
public struct Graph: Sendable {
  /// Name and declared shape of every tensor.
  public var tensors: [TensorInfo]
  /// Values of the tensors that are constants.
  public var constants: [Int: Tensor]
  /// Operators in execution order.
  public var nodes: [Node]
  /// Tensors the caller fills before a run.
  public var inputs: [Int]
  /// Tensors the caller reads after a run.
  public var outputs: [Int]

  /// Creates a graph; the interpreter checks it.
  public init(
    tensors: [TensorInfo], constants: [Int: Tensor], nodes: [Node], inputs: [Int], outputs: [Int]
  ) {
    self.tensors = tensors
    self.constants = constants
    self.nodes = nodes
    self.inputs = inputs
    self.outputs = outputs
  }
}

/// What a graph declares about one tensor.
public struct TensorInfo: Hashable, Sendable {
  /// The tensor's name in the model file.
  public var name: String
  /// The declared shape.
  public var shape: Shape

  /// Creates a tensor description.
  public init(name: String, shape: Shape) {
    self.name = name
    self.shape = shape
  }
}

/// One operator application: float inputs in, exactly one output.
public struct Node: Sendable {
  /// The operation.
  public var op: any Operator
  /// Input tensor ids (constants included), in the operator's order.
  public var inputs: [Int]
  /// The output tensor id.
  public var output: Int
  /// Where the node came from, such as `subgraphs[0].operators[17]`, for errors.
  public var location: String

  /// Creates a node.
  public init(op: any Operator, inputs: [Int], output: Int, location: String) {
    self.op = op
    self.inputs = inputs
    self.output = output
    self.location = location
  }
}
