import Testing
import VisageKernels
import VisageRuntime
import VisageTestSupport

/// A graph built in a test: tensors by name, nodes appended in order.
struct GraphSketch {
  var tensors: [TensorInfo] = []
  var constants: [Int: Tensor] = [:]
  var nodes: [Node] = []
  var inputs: [Int] = []
  var outputs: [Int] = []

  /// Adds an activation tensor and returns its id.
  mutating func tensor(_ name: String, _ shape: Shape) -> Int {
    tensors.append(TensorInfo(name: name, shape: shape))
    return tensors.count - 1
  }

  /// Adds a graph input.
  mutating func input(_ name: String, _ shape: Shape) -> Int {
    let id = tensor(name, shape)
    inputs.append(id)
    return id
  }

  /// Adds a constant.
  mutating func constant(_ name: String, _ shape: Shape, _ values: [Float]) throws -> Int {
    let id = tensor(name, shape)
    constants[id] = try Tensor(shape: shape, values: values)
    return id
  }

  /// Appends a node writing a new tensor of `shape`; returns the tensor's id.
  @discardableResult
  mutating func node(_ op: any Operator, _ inputs: [Int], _ name: String, _ shape: Shape) -> Int {
    let id = tensor(name, shape)
    nodes.append(Node(op: op, inputs: inputs, output: id, location: "nodes[\(nodes.count)]"))
    return id
  }

  var graph: Graph {
    Graph(tensors: tensors, constants: constants, nodes: nodes, inputs: inputs, outputs: outputs)
  }
}

/// Runs `graph` once on `inputs`.
func run(
  _ graph: Graph, _ inputs: [Tensor], _ implementation: Implementation = .optimized,
  preservingAllTensors: Bool = false
) throws -> [Tensor] {
  try Interpreter(graph: graph, implementation: implementation, preservingAllTensors: preservingAllTensors)
    .run(inputs)
}

/// The default interpreter (every fusion) against the graph as written (every tensor kept)
/// on the optimized kernels, value for value, and against the reference kernels within rounding.
func expectFusionKeepsOutputs(
  _ graph: Graph, referenceTolerance: Tolerance = .reordered(64), sourceLocation: SourceLocation = #_sourceLocation
) throws {
  var random = RandomSource(seed: 5)
  let inputs = try graph.inputs.map { id in
    let shape = graph.tensors[id].shape
    return try Tensor(shape: shape, values: random.floats(shape.count, in: -3...3))
  }
  let fused = try Interpreter(graph: graph).run(inputs)
  let unfused = try Interpreter(graph: graph, preservingAllTensors: true).run(inputs)
  let reference = try Interpreter(graph: graph, implementation: .reference).run(inputs)
  // Every fused node's reference path runs the steps it replaced one by one.
  let fusedReferences = try [Implementation.optimized, .blas].map {
    try Interpreter(graph: graph.fused(for: $0), implementation: .reference).run(inputs)
  }
  for k in fused.indices {
    for (fusedReference, passes) in zip(fusedReferences, ["optimized", "blas"]) {
      expectClose(
        fusedReference[k].values, reference[k].values, .exact, "output \(k) fused for \(passes), run by the reference",
        sourceLocation: sourceLocation)
    }
    #expect(fused[k].shape == unfused[k].shape, sourceLocation: sourceLocation)
    expectClose(
      fused[k].values, unfused[k].values, .exact, "output \(k) fused vs unfused", sourceLocation: sourceLocation)
    expectClose(
      fused[k].values, reference[k].values, referenceTolerance, "output \(k) vs reference",
      sourceLocation: sourceLocation)
  }
}

/// Expects building an interpreter for `graph` to fail with the given kind of error and a
/// message holding every fragment; returns the message.
@discardableResult
func expectRuntimeError(
  _ graph: Graph, _ kind: (RuntimeError) -> String?, containing fragments: [String],
  sourceLocation: SourceLocation = #_sourceLocation
) -> String? {
  for implementation in Implementation.allCases {
    do {
      _ = try Interpreter(graph: graph, implementation: implementation)
      Issue.record("\(implementation): no error", sourceLocation: sourceLocation)
    } catch {
      guard let message = kind(error) else {
        Issue.record("\(implementation): unexpected error kind: \(error)", sourceLocation: sourceLocation)
        continue
      }
      for fragment in fragments where !message.contains(fragment) {
        Issue.record("\(implementation): '\(fragment)' missing from: \(message)", sourceLocation: sourceLocation)
      }
      if implementation == .reference { return message }
    }
  }
  return nil
}

/// The message of an `.invalidGraph` error.
func invalidGraph(_ error: RuntimeError) -> String? {
  if case .invalidGraph(let message) = error { return message }
  return nil
}

/// The message of an `.invalidOperator` error.
func invalidOperator(_ error: RuntimeError) -> String? {
  if case .invalidOperator(let message) = error { return message }
  return nil
}
