import VisageKernels

/// The passes that fold a following step into a node's `Epilogue` (see `FusionPass`):
///
/// - `residualAdd`: an ADD of a node's output and a tensor that already exists when that
///   node runs becomes the node's residual (possibly through a PAD that only appends zero
///   channels: BlazeFace's widening blocks), and the ADD's clamp its clamp;
/// - `activation`: RELU / RELU6 after a node becomes its clamp, and PRELU with constant
///   per-channel slopes its PReLU (the landmark model's blocks end ADD → PRELU).
///
/// Only where the node's output feeds nothing else and is not a graph output, and only
/// when the node's operator accepts the extended epilogue (its `outputShape` says so).
/// The folded graph computes the same values while passing over each output once.
extension Graph {
  /// This graph with every foldable residual ADD folded into the node that feeds it.
  public func foldingResidualAdds() -> Graph {
    fold { graph, node, fused, producer, readers, removed in
      graph.foldResidual(node, fused, producer, readers, &removed)
    }
  }

  /// This graph with every foldable RELU, RELU6 and PRELU folded into its producer.
  public func foldingActivations() -> Graph {
    fold { graph, node, fused, producer, readers, _ in
      guard let source = node.inputs.first, let index = producer[source], readers[source] == 1,
        let merged = graph.foldActivation(node, into: fused[index])
      else { return nil }
      return (index, merged)
    }
  }

  /// Walks the nodes in order; where `match` folds a node into an earlier one, that earlier
  /// one becomes the merged node and the folded node goes.
  private func fold(
    _ match: (Graph, Node, [Node], [Int: Int], [Int: Int], inout Set<Int>) -> (Int, Node)?
  ) -> Graph {
    var readers: [Int: Int] = [:]
    for node in nodes { for id in node.inputs { readers[id, default: 0] += 1 } }
    for id in outputs { readers[id, default: 0] += 1 }
    var producer: [Int: Int] = [:]
    var fused = nodes
    var removed = Set<Int>()
    for (index, node) in nodes.enumerated() {
      guard let (target, merged) = match(self, node, fused, producer, readers, &removed), !removed.contains(target)
      else {
        producer[node.output] = index
        continue
      }
      fused[target] = merged
      removed.insert(index)
      producer[node.output] = target
    }
    return rewritten(
      replacing: Dictionary(uniqueKeysWithValues: fused.enumerated().map { ($0, $1) }), removing: removed)
  }

  /// The ADD `add` folded as a residual into the node producing one of its inputs, when the
  /// other input exists by the time that node runs; the node's index and the merged node.
  private func foldResidual(
    _ add: Node, _ fused: [Node], _ producer: [Int: Int], _ readers: [Int: Int], _ removed: inout Set<Int>
  ) -> (Int, Node)? {
    guard let binary = add.op as? Binary, binary.function == .add, add.inputs.count == 2 else { return nil }
    for (mine, other) in [(0, 1), (1, 0)] {
      let source = add.inputs[mine]
      guard let index = producer[source], readers[source] == 1, !removed.contains(index),
        (fused[index].op as? any EpilogueOperator)?.epilogue == Epilogue.none
      else { continue }
      var residual = add.inputs[other]
      var padIndex: Int?
      if let pad = producer[residual], readers[residual] == 1, !removed.contains(pad),
        let input = channelPadInput(fused[pad], output: tensors[source].shape)
      {
        (residual, padIndex) = (input, pad)
      } else if tensors[residual].shape != tensors[source].shape {
        continue
      }
      guard constants[residual] == nil, producer[residual].map({ $0 < index }) ?? inputs.contains(residual)
      else { continue }
      let node = fused[index]
      let location = "\(node.location) + \(padIndex.map { "\(fused[$0].location) + " } ?? "")\(add.location)"
      guard
        let merged = refinishing(
          node, inputs: node.inputs + [residual], output: add.output, location: location,
          {
            $0.addsResidual = true
            $0.clamp = binary.clamp
          })
      else { continue }
      if let padIndex { removed.insert(padIndex) }
      return (index, merged)
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

  /// `producer` with `activation` folded into its epilogue, or nil when it cannot be: the
  /// epilogue must not clamp or apply a PReLU yet.
  private func foldActivation(_ activation: Node, into producer: Node) -> Node? {
    let step: (inout Epilogue) -> Void
    switch activation.op {
    case let unary as Unary where unary.function == .relu: step = { $0.clamp = .relu }
    case let unary as Unary where unary.function == .relu6: step = { $0.clamp = .relu6 }
    case let binary as Binary where binary.function == .prelu && binary.clamp.isNone:
      guard activation.inputs.count == 2, let alpha = constants[activation.inputs[1]] else { return nil }
      step = { $0.slopes = alpha.values }
    default: return nil
    }
    guard let epilogue = (producer.op as? any EpilogueOperator)?.epilogue, epilogue.clamp.isNone,
      epilogue.slopes == nil
    else { return nil }
    return refinishing(
      producer, inputs: producer.inputs, output: activation.output,
      location: "\(producer.location) + \(activation.location)", step)
  }
}
