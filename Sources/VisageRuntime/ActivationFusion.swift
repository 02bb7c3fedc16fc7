/// Folds an activation that directly follows a convolution into the convolution.
///
/// CONV_2D → ADD of an earlier tensor (possibly through a PAD of its channels) becomes a
/// residual input of the convolution;
/// CONV_2D, DEPTHWISE_CONV_2D or a binary op such as ADD → RELU / RELU6 becomes a clamp;
/// a convolution → PRELU with constant per-channel slopes becomes a PReLU epilogue, also
/// after a folded residual ADD (the landmark model's blocks end ADD → PRELU); whenever the
/// convolution's output feeds only that activation and is not a graph output. The folded
/// graph computes the same values while passing over each output once instead of twice.
extension Graph {
  /// This graph with every foldable activation folded into its convolution.
  public func fusingActivations() -> Graph {
    var readers: [Int: Int] = [:]
    for node in nodes { for id in node.inputs { readers[id, default: 0] += 1 } }
    for id in outputs { readers[id, default: 0] += 1 }
    var producer: [Int: Int] = [:]
    var fused = nodes
    var removed = Set<Int>()
    for (index, node) in nodes.enumerated() {
      if let (convIndex, merged) = foldResidual(node, fused, producer, readers, &removed) {
        fused[convIndex] = merged
        removed.insert(index)
        producer[node.output] = convIndex
        continue
      }
      guard let source = node.inputs.first, let convIndex = producer[source],
        readers[source] == 1, !removed.contains(convIndex),
        let merged = fold(fused[convIndex], into: node)
      else {
        producer[node.output] = index
        continue
      }
      fused[convIndex] = merged
      removed.insert(index)
      producer[node.output] = convIndex
    }
    var graph = self
    graph.nodes = fused.indices.filter { !removed.contains($0) }.map { fused[$0] }
    return graph
  }

  /// An ADD of a convolution's output and a tensor that already exists when the
  /// convolution runs, folded into that convolution as a residual input. The tensor may
  /// also come through a PAD that only appends zero channels and feeds nothing else
  /// (BlazeFace's widening blocks): the PAD goes too, and the convolution adds +0 to the
  /// channels past the residual's, as the ADD of the padded tensor did.
  private func foldResidual(
    _ add: Node, _ fused: [Node], _ producer: [Int: Int], _ readers: [Int: Int], _ removed: inout Set<Int>
  ) -> (Int, Node)? {
    guard let binary = add.op as? Binary, binary.function == .add, add.inputs.count == 2 else { return nil }
    for (mine, other) in [(0, 1), (1, 0)] {
      let source = add.inputs[mine]
      guard let convIndex = producer[source], readers[source] == 1, !removed.contains(convIndex),
        var conv = fused[convIndex].op as? Conv2D, conv.clamp.isNone, conv.preluSlopes == nil,
        !conv.addsResidual
      else { continue }
      var residual = add.inputs[other]
      var padIndex: Int?
      if let index = producer[residual], readers[residual] == 1, !removed.contains(index),
        let input = channelPadInput(fused[index], output: tensors[source].shape)
      {
        (residual, padIndex) = (input, index)
      } else if tensors[residual].shape != tensors[source].shape {
        continue
      }
      guard constants[residual] == nil,
        producer[residual].map({ $0 < convIndex }) ?? inputs.contains(residual)
      else { continue }
      conv.clamp = binary.clamp
      conv.addsResidual = true
      var node = fused[convIndex]
      node.op = conv
      node.inputs.append(residual)
      node.output = add.output
      node.location = "\(node.location) + \(padIndex.map { "\(fused[$0].location) + " } ?? "")\(add.location)"
      if let padIndex { removed.insert(padIndex) }
      return (convIndex, node)
    }
    return nil
  }

  /// The input of `node` when it is a PAD that only appends zero channels to reach
  /// `output`'s shape; nil otherwise.
  private func channelPadInput(_ node: Node, output: Shape) -> Int? {
    guard let pad = node.op as? Pad, pad.value == 0, let input = node.inputs.first,
      tensors[node.output].shape == output, pad.paddings.count == output.rank
    else { return nil }
    let last = pad.paddings.count - 1
    let onlyChannelsAfter = pad.paddings.indices.allSatisfy { i in
      pad.paddings[i].before == 0 && (i == last || pad.paddings[i].after == 0)
    }
    return onlyChannelsAfter ? input : nil
  }

  /// The convolution `conv` with `activation` folded in, or nil when it cannot be.
  private func fold(_ conv: Node, into activation: Node) -> Node? {
    var result = conv
    result.output = activation.output
    result.location = "\(conv.location) + \(activation.location)"
    let clamp: Clamp?
    var slopes: [Float]?
    switch activation.op {
    case let unary as Unary where unary.function == .relu: clamp = .relu
    case let unary as Unary where unary.function == .relu6: clamp = .relu6
    case let binary as Binary where binary.function == .prelu && binary.clamp.isNone:
      guard activation.inputs.count == 2, let alpha = constants[activation.inputs[1]] else { return nil }
      clamp = nil
      slopes = alpha.values
    default: return nil
    }
    switch conv.op {
    case var op as Conv2D where op.clamp.isNone && op.preluSlopes == nil:
      guard slopes == nil || slopes!.count == tensors[conv.output].shape.dimensions.last else { return nil }
      op.clamp = clamp ?? .none
      op.preluSlopes = slopes
      result.op = op
    case var op as DepthwiseConv2D where op.clamp.isNone && op.preluSlopes == nil:
      guard slopes == nil || slopes!.count == tensors[conv.output].shape.dimensions.last else { return nil }
      op.clamp = clamp ?? .none
      op.preluSlopes = slopes
      result.op = op
    case var op as Binary where op.clamp.isNone && slopes == nil:
      op.clamp = clamp ?? .none
      result.op = op
    default: return nil
    }
    return result
  }
}
