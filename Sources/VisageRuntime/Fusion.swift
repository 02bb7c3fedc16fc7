import VisageKernels

/// One rewrite of a graph that removes work without changing any value: it finds one
/// pattern and either extends a node's `Epilogue` with the step that follows it or swaps
/// a chain of nodes for one fused operator. docs/runtime.md lists the passes and what each
/// matches.
///
/// Every fused node keeps a reference path that runs the steps it replaced one by one, so
/// a fused graph run with `.reference` computes what the graph as written computes.
public struct FusionPass: Sendable {
  /// The pass's name, for tests and docs.
  public let name: String
  private let rewrite: @Sendable (Graph) -> Graph

  /// A pass named `name` that rewrites a graph with `rewrite`.
  init(_ name: String, _ rewrite: @escaping @Sendable (Graph) -> Graph) {
    self.name = name
    self.rewrite = rewrite
  }

  /// The graph rewritten by this pass.
  public func callAsFunction(_ graph: Graph) -> Graph { rewrite(graph) }

  /// The passes the interpreter runs for `implementation`, in order: none for the
  /// reference, which runs the graph as written; ROW_MIXING only on the packed kernels
  /// (with BLAS the transposed convolutions stay).
  public static func passes(for implementation: Implementation) -> [FusionPass] {
    switch implementation {
    case .reference: []
    case .blas: [layerNorm, transposeAdd, residualAdd, activation, layerNormTranspose]
    case .optimized: [layerNorm, transposeAdd, residualAdd, activation, rowMixing, layerNormTranspose]
    }
  }

  /// The ten operators of a layer normalization become one LAYER_NORM.
  public static let layerNorm = FusionPass("layerNorm") { $0.fusingLayerNorms() }
  /// TRANSPOSE (last two dimensions) → ADD becomes a TRANSPOSE whose epilogue adds.
  public static let transposeAdd = FusionPass("transposeAdd") { $0.foldingTransposeAdds() }
  /// An ADD of a node's output (through a zero PAD of the channels or not) and an earlier
  /// tensor becomes that node's residual.
  public static let residualAdd = FusionPass("residualAdd") { $0.foldingResidualAdds() }
  /// RELU, RELU6 or PRELU after a node becomes that node's clamp or PReLU slopes.
  public static let activation = FusionPass("activation") { $0.foldingActivations() }
  /// TRANSPOSE → 1×1 CONV_2D chain → TRANSPOSE becomes ROW_MIXING nodes.
  public static let rowMixing = FusionPass("rowMixing") { $0.fusingRowMixing() }
  /// LAYER_NORM → TRANSPOSE (last two dimensions) becomes a LAYER_NORM that writes
  /// transposed.
  public static let layerNormTranspose = FusionPass("layerNormTranspose") { $0.foldingLayerNormTransposes() }
}

extension Graph {
  /// This graph after every pass the interpreter runs for `implementation`.
  public func fused(for implementation: Implementation) -> Graph {
    applying(FusionPass.passes(for: implementation))
  }

  /// This graph after `passes`, in order.
  public func applying(_ passes: [FusionPass]) -> Graph {
    passes.reduce(self) { graph, pass in pass(graph) }
  }

  /// `node` with `change` made to its operator's epilogue, reading `inputs` and writing
  /// `output` at `location`; nil when the operator carries no epilogue or rejects the
  /// changed one for these shapes (its output shape must be `output`'s declared shape).
  func refinishing(
    _ node: Node, inputs: [Int], output: Int, location: String, _ change: (inout Epilogue) -> Void
  ) -> Node? {
    guard var op = node.op as? any EpilogueOperator else { return nil }
    change(&op.epilogue)
    guard let shape = try? op.outputShape(inputs.map { tensors[$0].shape }), shape == tensors[output].shape
    else { return nil }
    return Node(op: op, inputs: inputs, output: output, location: location)
  }

  /// This graph with the nodes at `removed` left out and those in `replaced` swapped in.
  func rewritten(replacing replaced: [Int: Node], removing removed: Set<Int>) -> Graph {
    var graph = self
    graph.nodes = nodes.indices.filter { !removed.contains($0) }.map { replaced[$0] ?? nodes[$0] }
    return graph
  }
}
