import VisageKernels

/// Replaces layer normalizations spelled out in ten operators with one `LayerNorm` (the
/// `layerNorm` pass).
///
/// The pattern, over the last dimension of x (as TFLite converts a Keras LayerNormalization
/// without β, the MLP-mixer blocks of the blendshapes model):
///
///     m = MEAN(x) · n = NEG(m) · d = SQUARED_DIFFERENCE(x, m) · v = MEAN(d)
///     r = RSQRT(ADD(v, ε)) · s = MUL(r, γ) · y = ADD(MUL(x, s), MUL(n, s))
///
/// Each intermediate must be read only inside the pattern and not be a graph output; the
/// fused operator rounds every value as the separate operators do, so outputs are
/// unchanged. A TRANSPOSE after it is folded later, by `foldingLayerNormTransposes`.
extension Graph {
  /// This graph with every recognized layer normalization fused into one operator.
  public func fusingLayerNorms() -> Graph {
    let readers = TensorReaders(self)
    var replaced: [Int: Node] = [:]
    var removed = Set<Int>()
    for (index, node) in nodes.enumerated() where !removed.contains(index) {
      guard let match = matchLayerNorm(at: index, node, readers) else { continue }
      if match.nodes.contains(where: { removed.contains($0) || replaced[$0] != nil }) { continue }
      let last = match.nodes.max()!
      replaced[last] = Node(
        op: LayerNorm(epsilon: match.epsilon), inputs: [node.inputs[0], match.gamma], output: match.output,
        location: match.nodes.sorted().map { nodes[$0].location }.joined(separator: " + "))
      for n in match.nodes where n != last { removed.insert(n) }
    }
    return rewritten(replacing: replaced, removing: removed)
  }

  /// A LAYER_NORM whose output feeds only a TRANSPOSE swapping the last two dimensions
  /// writes its output that way instead, at the TRANSPOSE's place (the `layerNormTranspose`
  /// pass; it runs after `rowMixing`, which reads such a TRANSPOSE as its opener).
  public func foldingLayerNormTransposes() -> Graph {
    let readers = TensorReaders(self)
    var replaced: [Int: Node] = [:]
    var removed = Set<Int>()
    for (index, node) in nodes.enumerated() where node.op is LayerNorm {
      guard let t = readers.sole(node.output), let transpose = nodes[t].op as? Transpose,
        transpose.swapsLastTwo, transpose.epilogue == .none, nodes[t].inputs == [node.output],
        let merged = refinishing(
          node, inputs: node.inputs, output: nodes[t].output, location: "\(node.location) + \(nodes[t].location)",
          { $0.transposesOutput = true })
      else { continue }
      replaced[t] = merged
      removed.insert(index)
    }
    return rewritten(replacing: replaced, removing: removed)
  }

  private struct LayerNormMatch {
    var nodes: [Int]
    var gamma: Int
    var epsilon: Float
    var output: Int
  }

  private func matchLayerNorm(
    at meanIndex: Int, _ mean: Node, _ readers: TensorReaders
  ) -> LayerNormMatch? {
    let x = mean.inputs.first ?? -1
    guard isLastAxisMean(mean), constants[x] == nil else { return nil }
    let xShape = tensors[x].shape
    let m = mean.output
    let soleReader = readers.sole
    func binary(_ index: Int, _ function: BinaryFunction) -> Bool {
      guard let op = nodes[index].op as? Binary else { return false }
      return op.function == function && op.clamp.isNone && nodes[index].inputs.count == 2
    }
    /// The other input of a commutative binary node that reads `id`.
    func other(_ index: Int, _ id: Int) -> Int? {
      let inputs = nodes[index].inputs
      if inputs[0] == id { return inputs[1] }
      if inputs[1] == id { return inputs[0] }
      return nil
    }
    guard let mReaders = readers.of(m), mReaders.count == 2 else { return nil }
    guard let negIndex = mReaders.first(where: { (nodes[$0].op as? Unary)?.function == .negate }),
      let diffIndex = mReaders.first(where: { binary($0, .squaredDifference) }),
      nodes[negIndex].inputs == [m], nodes[diffIndex].inputs == [x, m]
    else { return nil }
    let n = nodes[negIndex].output
    guard let varianceIndex = soleReader(nodes[diffIndex].output), isLastAxisMean(nodes[varianceIndex]),
      let epsIndex = soleReader(nodes[varianceIndex].output), binary(epsIndex, .add),
      let eps = other(epsIndex, nodes[varianceIndex].output), let epsValue = constants[eps],
      epsValue.values.count == 1,
      let rsqrtIndex = soleReader(nodes[epsIndex].output),
      (nodes[rsqrtIndex].op as? Unary)?.function == .reciprocalSquareRoot,
      let scaleIndex = soleReader(nodes[rsqrtIndex].output), binary(scaleIndex, .multiply),
      let gamma = other(scaleIndex, nodes[rsqrtIndex].output), let gammaValue = constants[gamma],
      gammaValue.shape.rank == 1, gammaValue.values.count == xShape.dimensions.last
    else { return nil }
    let s = nodes[scaleIndex].output
    guard tensors[s].shape == xShape, let sReaders = readers.of(s), sReaders.count == 2,
      let timesX = sReaders.first(where: { binary($0, .multiply) && other($0, s) == x && x != s }),
      let timesN = sReaders.first(where: { $0 != timesX && binary($0, .multiply) && other($0, s) == n }),
      soleReader(n) == timesN,
      let sumIndex = soleReader(nodes[timesX].output), soleReader(nodes[timesN].output) == sumIndex,
      binary(sumIndex, .add), nodes[timesX].output != nodes[timesN].output
    else { return nil }
    let chain = [
      meanIndex, negIndex, diffIndex, varianceIndex, epsIndex, rsqrtIndex, scaleIndex, timesX, timesN, sumIndex,
    ]
    let output = nodes[sumIndex].output
    guard tensors[output].shape == xShape else { return nil }
    return LayerNormMatch(nodes: chain, gamma: gamma, epsilon: epsValue.values[0], output: output)
  }

  /// A MEAN over the last axis only, keeping it as size 1.
  private func isLastAxisMean(_ node: Node) -> Bool {
    guard let reduce = node.op as? Reduce, reduce.kind == .mean, reduce.keepDimensions,
      node.inputs.count == 1
    else { return false }
    let rank = tensors[node.inputs[0]].shape.rank
    guard rank >= 1, tensors[node.inputs[0]].shape.dimensions.last! > 0 else { return false }
    return !reduce.axes.isEmpty && reduce.axes.allSatisfy { $0 == rank - 1 || $0 == -1 }
  }
}
