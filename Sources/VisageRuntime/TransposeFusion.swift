import VisageKernels

extension Graph {
  /// A TRANSPOSE swapping the last two dimensions whose output only feeds an ADD (no
  /// activation) of a tensor of the same shape becomes one TRANSPOSE whose epilogue adds
  /// it, at the ADD's place (the `transposeAdd` pass: the blendshapes model's token-mixing
  /// blocks end CONV_2D → TRANSPOSE → residual ADD).
  public func foldingTransposeAdds() -> Graph {
    let readers = TensorReaders(self)
    var replaced: [Int: Node] = [:]
    var removed = Set<Int>()
    for (index, node) in nodes.enumerated() {
      guard let transpose = node.op as? Transpose, transpose.swapsLastTwo, transpose.epilogue == .none,
        node.inputs.count == 1, let reader = readers.sole(node.output), replaced[reader] == nil,
        !removed.contains(reader)
      else { continue }
      let add = nodes[reader]
      guard let binary = add.op as? Binary, binary.function == .add, binary.clamp.isNone,
        add.inputs.count == 2, add.inputs[0] != add.inputs[1]
      else { continue }
      let residual = add.inputs[0] == node.output ? add.inputs[1] : add.inputs[0]
      guard tensors[residual].shape == tensors[node.output].shape,
        let merged = refinishing(
          node, inputs: [node.inputs[0], residual], output: add.output, location: "\(node.location) + \(add.location)",
          { $0.addsResidual = true })
      else { continue }
      replaced[reader] = merged
      removed.insert(index)
    }
    return rewritten(replacing: replaced, removing: removed)
  }
}
