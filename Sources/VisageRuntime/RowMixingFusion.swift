import VisageKernels

/// Replaces TRANSPOSE → 1×1 CONV_2D chains → TRANSPOSE with `RowMixing` operators (the
/// `rowMixing` pass).
///
/// The blendshapes model's token mixing transposes its 97×64 tokens to 64×97, runs two 1×1
/// convolutions over the 97 (then 384) channels, and transposes back. The same values come
/// out of F · X with X left as it is: the transposes go, each convolution becomes a
/// `RowMixing` with the same filter, bias and clamp, and its output is the transpose of the
/// convolution's, so the declared shapes of the tensors in between swap their last two
/// dimensions. The chain opens with a TRANSPOSE swapping the last two dimensions and closes
/// with a TRANSPOSE swapping them back, whose folded residual ADD the last `RowMixing`
/// takes over. Every tensor in between must feed only the next link and not be a graph
/// output. Only matrices whose columns are a multiple of 16 qualify, the width
/// `LeftPackedGEMM` works in.
extension Graph {
  /// This graph with every recognized transposed 1×1 convolution chain computed in place.
  public func fusingRowMixing() -> Graph {
    let readers = TensorReaders(self)
    var graph = self
    var replaced: [Int: Node] = [:]
    var removed = Set<Int>()
    for (index, opener) in nodes.enumerated() {
      guard let open = opener.op as? Transpose, open.swapsLastTwo, open.epilogue == .none, opener.inputs.count == 1,
        tensors[opener.inputs[0]].shape.rank >= 2, tensors[opener.inputs[0]].shape.dimensions.last! % 16 == 0
      else { continue }
      var chain: [(index: Int, clamp: Clamp)] = []
      var id = opener.output
      var closing: (index: Int, epilogue: Epilogue)?
      while let r = readers.sole(id), nodes[r].inputs.first == id {
        if let clamp = pointwiseClamp(nodes[r]) {
          chain.append((r, clamp))
          id = nodes[r].output
          continue
        }
        if let t = nodes[r].op as? Transpose, t.swapsLastTwo { closing = (r, t.epilogue) }
        break
      }
      guard let closing, let last = chain.last,
        !([index, closing.index] + chain.map(\.index)).contains(where: { removed.contains($0) || replaced[$0] != nil })
      else { continue }
      let addsResidual = closing.epilogue.addsResidual
      if addsResidual && !last.clamp.isNone { continue }

      removed.insert(index)
      var input = opener.inputs[0]
      let closer = nodes[closing.index]
      // Each link now holds the transpose of what it held, so its declared shape swaps too.
      for (position, link) in chain.enumerated() {
        let conv = nodes[link.index]
        let isLast = position == chain.count - 1
        let output = isLast ? closer.output : conv.output
        if !isLast { graph.tensors[output].shape = Self.swappingLastTwo(tensors[output].shape) }
        let node = Node(
          op: RowMixing(epilogue: Epilogue(addsResidual: isLast && addsResidual, clamp: link.clamp)),
          inputs: [input] + conv.inputs.dropFirst() + (isLast && addsResidual ? [closer.inputs[1]] : []),
          output: output, location: isLast ? "\(conv.location) + \(closer.location)" : conv.location)
        // The last link runs where the closing TRANSPOSE ran, after its residual exists.
        if isLast {
          replaced[closing.index] = node
          removed.insert(link.index)
        } else {
          replaced[link.index] = node
        }
        input = output
      }
    }
    return graph.rewritten(replacing: replaced, removing: removed)
  }

  /// The clamp of a CONV_2D with a constant 1×1 filter, stride 1, a constant bias if any,
  /// and nothing folded in but a clamp; nil for any other node.
  private func pointwiseClamp(_ node: Node) -> Clamp? {
    guard let conv = node.op as? Conv2D, !conv.epilogue.addsResidual, conv.epilogue.slopes == nil,
      conv.strideHeight == 1, conv.strideWidth == 1, node.inputs.count == 2 || node.inputs.count == 3,
      node.inputs.dropFirst().allSatisfy({ constants[$0] != nil })
    else { return nil }
    let filter = tensors[node.inputs[1]].shape
    guard filter.rank == 4, filter[1] == 1, filter[2] == 1, tensors[node.inputs[0]].shape.rank == 4 else { return nil }
    return conv.epilogue.clamp
  }

  private static func swappingLastTwo(_ shape: Shape) -> Shape {
    var dims = shape.dimensions
    dims.swapAt(dims.count - 1, dims.count - 2)
    return Shape(dims)
  }
}
