import VisageKernels

/// Runs a graph: checks it, plans its memory and prepares every operator once, then runs
/// inferences that allocate nothing.
///
/// One interpreter runs one inference at a time; use one per thread.
public final class Interpreter {
  /// The graph being run.
  public let graph: Graph
  /// Which kernels the operators use.
  public let implementation: Implementation
  /// The threads operators spread their work over, if any.
  public let pool: ThreadPool?
  /// Shape of every tensor that has one, keyed by tensor id.
  public let shapes: [Int: Shape]
  /// Whether every tensor keeps its own memory and the graph runs unfused, so that
  /// `value(ofTensor:)` holds every intermediate after a run.
  public let preservesAllTensors: Bool

  private let arena: ConstantBuffer
  private let constantBuffers: [Int: ConstantBuffer]
  /// The constants copied into buffers of the interpreter's own: those a step reads by
  /// address (biases, an operand of ADD), not the filters the convolutions pack.
  package var copiedConstants: Set<Int> { Set(constantBuffers.keys) }
  private let addresses: [Int: UnsafeMutablePointer<Float>]
  private let steps: [Step]

  /// The largest tensor, in values, a graph may declare (256 MiB of floats).
  public static let maximumTensorCount = 1 << 26
  /// The largest activation arena, in values (1 GiB of floats).
  public static let maximumArenaCount = 1 << 28

  /// Checks `graph`, plans its memory and prepares its operators.
  ///
  /// - Parameter preservingAllTensors: give every tensor its own memory so that
  ///   `value(ofTensor:)` can read any intermediate result after a run (for debugging and
  ///   layer fingerprints); costs memory, not speed.
  /// - Parameter pool: threads for the larger operators to share (convolutions, and ADD,
  ///   MAX_POOL_2D, RESIZE_BILINEAR, LAYER_NORM, TRANSPOSE and ROW_MIXING where they are big
  ///   enough to pay: see `Work`); nil runs everything on the calling thread. One pool may
  ///   serve several interpreters. With `.blas`, BLAS's own thread count is set to the
  ///   pool's.
  public init(
    graph: Graph, implementation: Implementation = .optimized, preservingAllTensors: Bool = false,
    pool: ThreadPool? = nil
  ) throws(RuntimeError) {
    // Fusion (`FusionPass.passes(for:)`) removes intermediate tensors, so it is skipped when
    // every tensor is to be kept; the reference runs the graph as written. The graph as
    // given is checked first, because fusion trusts its tensor ids.
    var shapes = try Self.inferShapes(graph)
    let passes = preservingAllTensors ? [] : FusionPass.passes(for: implementation)
    let graph = graph.applying(passes)
    if !passes.isEmpty { shapes = try Self.inferShapes(graph) }
    self.graph = graph
    self.preservesAllTensors = preservingAllTensors
    self.implementation = implementation
    self.pool = pool
    // BLAS has threads of its own (one per core by default, which costs more than it gains
    // on these small matrices): it gets as many as the pool has, 1 without one. The
    // setting is process-wide; the last BLAS interpreter made decides it.
    if implementation == .blas { GEMM.setThreadCount(pool?.threadCount ?? 1) }
    self.shapes = shapes

    // Lifetimes of activations: defined at a step (-1 for graph inputs), last read at a step.
    var lifetimes: [Int: (first: Int, last: Int)] = [:]
    for id in graph.inputs { lifetimes[id] = (-1, -1) }
    for (step, node) in graph.nodes.enumerated() {
      lifetimes[node.output] = (step, step)
      for id in node.inputs where graph.constants[id] == nil {
        lifetimes[id]!.last = max(lifetimes[id]!.last, step)
      }
    }
    for id in graph.outputs where graph.constants[id] == nil { lifetimes[id]!.last = graph.nodes.count }
    let plan = MemoryPlan(
      tensors: lifetimes.map { (id: $0.key, count: shapes[$0.key]!.count, first: $0.value.first, last: $0.value.last) },
      reuse: !preservingAllTensors)
    guard plan.size <= Self.maximumArenaCount else {
      throw .invalidGraph("activations need \(plan.size) floats, more than the limit of \(Self.maximumArenaCount)")
    }
    arena = ConstantBuffer(zeros: plan.size)
    var addresses: [Int: UnsafeMutablePointer<Float>] = [:]
    for (id, offset) in plan.offsets { addresses[id] = arena.pointer + offset }
    self.addresses = addresses

    // A constant is copied into a buffer of its own when a step first asks for its address.
    let copies = ConstantCopies(graph.constants)
    var steps: [Step] = []
    for node in graph.nodes {
      let inputs = node.inputs
      let context = OperatorContext(
        inputShapes: inputs.map { shapes[$0]! }, outputShape: shapes[node.output]!,
        constants: inputs.map { graph.constants[$0] },
        inputs: InputPointers(count: inputs.count) { i in
          UnsafePointer(addresses[inputs[i]] ?? copies.pointer(for: inputs[i]))
        },
        output: addresses[node.output]!, implementation: implementation, pool: pool)
      do {
        steps.append(try node.op.prepare(context))
      } catch {
        throw .invalidOperator("\(node.location) (\(node.op.name)): \(error.message)")
      }
    }
    self.steps = steps
    constantBuffers = copies.buffers
  }

  /// The constants' buffers a graph's steps asked for, made on first request.
  private final class ConstantCopies {
    let constants: [Int: Tensor]
    var buffers: [Int: ConstantBuffer] = [:]

    init(_ constants: [Int: Tensor]) { self.constants = constants }

    /// The address of constant `id`'s copy (which must be a constant of the graph).
    func pointer(for id: Int) -> UnsafeMutablePointer<Float> {
      if let buffer = buffers[id] { return buffer.pointer }
      let buffer = ConstantBuffer(copying: constants[id]!.values)
      buffers[id] = buffer
      return buffer.pointer
    }
  }

  /// Checks ids, order and declared shapes, and computes every tensor's shape.
  private static func inferShapes(_ graph: Graph) throws(RuntimeError) -> [Int: Shape] {
    func declared(_ id: Int, _ place: String) throws(RuntimeError) -> Shape {
      guard id >= 0, id < graph.tensors.count else {
        throw .invalidGraph("\(place) names tensor \(id), but there are \(graph.tensors.count) tensors")
      }
      let info = graph.tensors[id]
      guard let count = info.shape.checkedCount, count > 0, count <= maximumTensorCount else {
        throw .invalidGraph(
          "\(place): tensor \(id) '\(info.name)' declares shape \(info.shape); sizes must be "
            + "positive with at most \(maximumTensorCount) values")
      }
      return info.shape
    }
    var shapes: [Int: Shape] = [:]
    for (id, constant) in graph.constants {
      _ = try declared(id, "constant")
      shapes[id] = constant.shape
    }
    for (i, id) in graph.inputs.enumerated() {
      let shape = try declared(id, "inputs[\(i)]")
      guard graph.constants[id] == nil else { throw .invalidGraph("input tensor \(id) is also a constant") }
      shapes[id] = shape
    }
    for node in graph.nodes {
      var inputShapes: [Shape] = []
      for (k, id) in node.inputs.enumerated() {
        _ = try declared(id, "\(node.location).inputs[\(k)]")
        guard let shape = shapes[id] else {
          throw .invalidGraph(
            "\(node.location).inputs[\(k)] reads tensor \(id) '\(graph.tensors[id].name)' before "
              + "any operator writes it (a cycle, or a missing producer)")
        }
        inputShapes.append(shape)
      }
      let expected = try declared(node.output, "\(node.location).outputs[0]")
      guard shapes[node.output] == nil else {
        throw .invalidGraph(
          "\(node.location) writes tensor \(node.output) '\(graph.tensors[node.output].name)', "
            + "which is already a constant, an input or another operator's output")
      }
      let shape: Shape
      do {
        shape = try node.op.outputShape(inputShapes)
      } catch {
        throw .invalidOperator("\(node.location) (\(node.op.name)): \(error.message)")
      }
      guard shape == expected else {
        throw .invalidGraph(
          "\(node.location) (\(node.op.name)) computes shape \(shape) for tensor \(node.output) "
            + "'\(graph.tensors[node.output].name)', but the model declares \(expected)")
      }
      shapes[node.output] = shape
    }
    for (i, id) in graph.outputs.enumerated() {
      _ = try declared(id, "outputs[\(i)]")
      guard shapes[id] != nil else { throw .invalidGraph("outputs[\(i)]: tensor \(id) is never written") }
    }
    return shapes
  }

  /// Shapes of the graph's inputs, in order.
  public var inputShapes: [Shape] { graph.inputs.map { shapes[$0]! } }
  /// Shapes of the graph's outputs, in order.
  public var outputShapes: [Shape] { graph.outputs.map { shapes[$0]! } }

  /// Gives direct access to input `index`'s memory, to fill before `invoke()`.
  public func withInput<R>(
    _ index: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws -> R
  ) rethrows -> R {
    let id = graph.inputs[index]
    return try body(UnsafeMutableBufferPointer(start: addresses[id]!, count: shapes[id]!.count))
  }

  /// Gives direct access to output `index`'s memory after `invoke()`.
  public func withOutput<R>(
    _ index: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R
  ) rethrows -> R {
    let id = graph.outputs[index]
    return try body(UnsafeBufferPointer(start: addresses[id]!, count: shapes[id]!.count))
  }

  /// Runs every operator once on the inputs already in place.
  public func invoke() {
    for step in steps { step() }
  }

  /// Copies `inputs` in (one per graph input, each the declared shape's count), runs, and
  /// returns copies of the outputs.
  public func run(_ inputs: [Tensor]) throws(RuntimeError) -> [Tensor] {
    guard inputs.count == graph.inputs.count else {
      throw .invalidInput("the graph takes \(graph.inputs.count) inputs, got \(inputs.count)")
    }
    for (i, tensor) in inputs.enumerated() {
      let expected = inputShapes[i]
      guard tensor.values.count == expected.count else {
        throw .invalidInput("input \(i) needs shape \(expected) (\(expected.count) values), got \(tensor.shape)")
      }
      withInput(i) { _ = $0.update(fromContentsOf: tensor.values) }
    }
    invoke()
    return graph.outputs.indices.map(output)
  }

  /// A copy of output `index`.
  public func output(_ index: Int) -> Tensor {
    let id = graph.outputs[index]
    return withOutput(index) { try! Tensor(shape: shapes[id]!, values: Array($0)) }
  }

  /// The current value of any tensor: a constant, or an activation as the last run left it
  /// (only reliable for intermediates when built with `preservingAllTensors`).
  public func value(ofTensor id: Int) -> Tensor? {
    if let constant = graph.constants[id] { return constant }
    guard let address = addresses[id], let shape = shapes[id] else { return nil }
    let values = Array(UnsafeBufferPointer(start: address, count: shape.count))
    return try? Tensor(shape: shape, values: values)
  }

  /// Runs once, timing each operator; returns seconds per node in execution order.
  public func profile() -> [Double] {
    let clock = ContinuousClock()
    return steps.map { step in
      let elapsed = clock.measure { step() }
      return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
  }
}

extension RuntimeError {
  /// The message without the case prefix, for wrapping in a more specific one.
  var message: String {
    switch self {
    case .invalidGraph(let m), .invalidOperator(let m), .invalidInput(let m): m
    }
  }
}
