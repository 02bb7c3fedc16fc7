/// Replaces TRANSPOSE → 1×1 CONV_2D chains → TRANSPOSE with `RowMixing` operators.
///
/// The blendshapes model's token mixing transposes its 97×64 tokens to 64×97, runs two 1×1
/// convolutions over the 97 (then 384) channels, and transposes back. The same values come
/// out of F · X with X left as it is: the transposes go, each convolution becomes a
/// `RowMixing` with the same filter, bias and clamp, and its output is the transpose of the
/// convolution's. The chain opens with a TRANSPOSE swapping the last two dimensions or a
/// `LayerNorm` that writes its output that way (which then stops doing so), and closes with
/// a TRANSPOSE swapping them back, whose folded residual ADD the last `RowMixing` takes
/// over. Every tensor in between must feed only the next link and not be a graph output.
/// Only matrices whose columns are a multiple of 16 qualify, the width `LeftPackedGEMM`
/// works in.
extension Graph {
  /// This graph with every recognized transposed 1×1 convolution chain computed in place.
  public func fusingRowMixing() -> Graph {
    let readers = TensorReaders(self)
    var graph = self
    var replaced: [Int: Node] = [:]
    var removed = Set<Int>()
    for (index, opener) in nodes.enumerated() {
      guard opensTransposed(opener), opener.inputs.first.map({ tensors[$0].shape.rank >= 2 }) ?? false,
        tensors[opener.inputs[0]].shape.dimensions.last! % 16 == 0
      else { continue }
      var chain: [Int] = []
      var id = opener.output
      var closer: Int?
      while let r = readers.sole(id), nodes[r].inputs.first == id {
        if isPointwise(nodes[r]) {
          chain.append(r)
          id = nodes[r].output
          continue
        }
        if let t = nodes[r].op as? Transpose, t.swapsLastTwo { closer = r }
        break
      }
      guard let closer, let last = chain.last,
        !([index, closer] + chain).contains(where: { removed.contains($0) || replaced[$0] != nil })
      else { continue }
      let closing = nodes[closer]
      let addsResidual = (closing.op as! Transpose).addsResidual
      if addsResidual && !(nodes[last].op as! Conv2D).clamp.isNone { continue }

      var input = opener.inputs[0]
      if let norm = opener.op as? LayerNorm {
        replaced[index] = Node(
          op: LayerNorm(epsilon: norm.epsilon, transposesOutput: false), inputs: opener.inputs,
          output: opener.output, location: opener.location)
        input = opener.output
      } else {
        removed.insert(index)
      }
      // Each link now holds the transpose of what it held, so its declared shape swaps too.
      for (position, link) in chain.enumerated() {
        let conv = nodes[link]
        let isLast = position == chain.count - 1
        let output = isLast ? closing.output : conv.output
        if !isLast { graph.tensors[output].shape = Self.swappingLastTwo(tensors[output].shape) }
        let node = Node(
          op: RowMixing(clamp: (conv.op as! Conv2D).clamp, addsResidual: isLast && addsResidual),
          inputs: [input] + conv.inputs.dropFirst() + (isLast && addsResidual ? [closing.inputs[1]] : []),
          output: output, location: isLast ? "\(conv.location) + \(closing.location)" : conv.location)
        // The last link runs where the closing TRANSPOSE ran, after its residual exists.
        if isLast {
          replaced[closer] = node
          removed.insert(link)
        } else {
          replaced[link] = node
        }
        input = output
      }
      if opener.op is LayerNorm { graph.tensors[opener.output].shape = tensors[opener.inputs[0]].shape }
    }
    graph.nodes = nodes.indices.filter { !removed.contains($0) }.map { replaced[$0] ?? nodes[$0] }
    return graph
  }

  /// A node whose output is its input with the last two dimensions swapped.
  private func opensTransposed(_ node: Node) -> Bool {
    if let t = node.op as? Transpose { return t.swapsLastTwo && !t.addsResidual && node.inputs.count == 1 }
    if let norm = node.op as? LayerNorm { return norm.transposesOutput }
    return false
  }

  /// A CONV_2D with a constant 1×1 filter, stride 1, a constant bias if any, and nothing
  /// fused but a clamp.
  private func isPointwise(_ node: Node) -> Bool {
    guard let conv = node.op as? Conv2D, !conv.addsResidual, conv.preluSlopes == nil,
      conv.strideHeight == 1, conv.strideWidth == 1, node.inputs.count == 2 || node.inputs.count == 3,
      node.inputs.dropFirst().allSatisfy({ constants[$0] != nil })
    else { return false }
    let filter = tensors[node.inputs[1]].shape
    return filter.rank == 4 && filter[1] == 1 && filter[2] == 1 && tensors[node.inputs[0]].shape.rank == 4
  }

  private static func swappingLastTwo(_ shape: Shape) -> Shape {
    var dims = shape.dimensions
    dims.swapAt(dims.count - 1, dims.count - 2)
    return Shape(dims)
  }
}
