import Testing
import VisageKernels
import VisageRuntime
import VisageTFLite
import VisageTestSupport

/// The `layerNorm`, `layerNormTranspose` and `transposeAdd` passes: the ten-operator layer
/// normalization becomes one LAYER_NORM (writing transposed when a TRANSPOSE follows) and
/// TRANSPOSE → ADD one TRANSPOSE that adds, with outputs bit-identical to the separate
/// optimized operators' (`preservingAllTensors` runs the unfused graph), and the fused
/// nodes' reference paths bit-identical to the separate reference operators'.
@Suite struct LayerNormFusionTests {
  /// The passes these tests exercise, in the interpreter's order.
  static func fused(_ graph: Graph) -> Graph {
    graph.applying([.layerNorm, .transposeAdd, .layerNormTranspose])
  }

  /// x → the spelled-out layer normalization over x's last dimension → optionally a
  /// TRANSPOSE of the last two dimensions; `exposeMean` also makes the first MEAN an output.
  static func layerNorm(_ shape: [Int], transpose: Bool = false, exposeMean: Bool = false) throws -> GraphSketch {
    var g = GraphSketch()
    var random = RandomSource(seed: 11)
    let channels = shape.last!
    var reducedShape = shape
    reducedShape[shape.count - 1] = 1
    let x = g.input("x", Shape(shape))
    let gamma = try g.constant("gamma", [channels], random.floats(channels, in: 0.5...1.5))
    let eps = try g.constant("eps", [], [1e-6])
    let m = g.node(Reduce(.mean, axes: [-1], keepDimensions: true), [x], "m", Shape(reducedShape))
    let n = g.node(Unary(.negate), [m], "n", Shape(reducedShape))
    let d = g.node(Binary(.squaredDifference), [x, m], "d", Shape(shape))
    let v = g.node(Reduce(.mean, axes: [shape.count - 1], keepDimensions: true), [d], "v", Shape(reducedShape))
    let ve = g.node(Binary(.add), [v, eps], "ve", Shape(reducedShape))
    let r = g.node(Unary(.reciprocalSquareRoot), [ve], "r", Shape(reducedShape))
    let s = g.node(Binary(.multiply), [r, gamma], "s", Shape(shape))
    let a = g.node(Binary(.multiply), [x, s], "a", Shape(shape))
    let b = g.node(Binary(.multiply), [n, s], "b", Shape(shape))
    var y = g.node(Binary(.add), [a, b], "y", Shape(shape))
    if transpose {
      let rank = shape.count
      var swapped = shape
      swapped.swapAt(rank - 1, rank - 2)
      y = g.node(Transpose(permutation: Array(0..<(rank - 2)) + [rank - 1, rank - 2]), [y], "t", Shape(swapped))
    }
    g.outputs = exposeMean ? [y, m] : [y]
    return g
  }

  @Test(arguments: [[1, 1, 97, 64], [3, 13], [2, 4, 17], [1, 8], [5, 1], [1, 1, 1, 7], [2, 3, 24]])
  func awkwardShapesFuseAndMatch(_ shape: [Int]) throws {
    for transpose in shape.count >= 2 ? [false, true] : [false] {
      let g = try Self.layerNorm(shape, transpose: transpose)
      let fused = Self.fused(g.graph)
      #expect(fused.nodes.map(\.op.name) == ["LAYER_NORM"], "\(shape) transpose \(transpose)")
      #expect(fused.nodes.last?.output == g.outputs[0])
      try expectFusionKeepsOutputs(g.graph)
    }
  }

  @Test func exposedIntermediateIsNotFused() throws {
    let g = try Self.layerNorm([4, 16], exposeMean: true)
    #expect(Self.fused(g.graph).nodes.count == g.nodes.count)
    try expectFusionKeepsOutputs(g.graph)
  }

  /// x → TRANSPOSE (last two swapped) → ADD of y (either operand order), optionally with
  /// the transposed tensor also an output.
  static func transposeThenAdd(_ shape: [Int], residualFirst: Bool, exposeTranspose: Bool = false) -> GraphSketch {
    var g = GraphSketch()
    let rank = shape.count
    var swapped = shape
    swapped.swapAt(rank - 1, rank - 2)
    let x = g.input("x", Shape(shape))
    let y = g.input("y", Shape(swapped))
    let t = g.node(Transpose(permutation: Array(0..<(rank - 2)) + [rank - 1, rank - 2]), [x], "t", Shape(swapped))
    let sum = g.node(Binary(.add), residualFirst ? [y, t] : [t, y], "sum", Shape(swapped))
    g.outputs = exposeTranspose ? [sum, t] : [sum]
    return g
  }

  @Test(arguments: [[1, 1, 64, 97], [3, 5], [2, 9, 4], [1, 16, 8], [1, 1], [2, 3, 17, 7]])
  func transposeThenAddFoldsAndMatches(_ shape: [Int]) throws {
    for residualFirst in [false, true] {
      let g = Self.transposeThenAdd(shape, residualFirst: residualFirst)
      let fused = Self.fused(g.graph)
      #expect(fused.nodes.count == 1, "\(shape)")
      #expect((fused.nodes.first?.op as? Transpose)?.epilogue.addsResidual == true)
      #expect(fused.nodes.first?.output == g.outputs[0])
      try expectFusionKeepsOutputs(g.graph, referenceTolerance: .exact)
    }
    let exposed = Self.transposeThenAdd(shape, residualFirst: false, exposeTranspose: true)
    #expect(Self.fused(exposed.graph).nodes.count == 2)
    try expectFusionKeepsOutputs(exposed.graph, referenceTolerance: .exact)
  }

  @Test func blendshapesModelFusesEveryLayerNormAndKeepsItsValues() throws {
    let model = try BundledModel.faceBlendshapes.load()
    let fused = Self.fused(model.graph)
    let norms = fused.nodes.compactMap { $0.op as? LayerNorm }
    #expect(norms.count == 8)
    #expect(norms.filter(\.epilogue.transposesOutput).count == 4)
    #expect(fused.nodes.filter { ($0.op as? Transpose)?.epilogue.addsResidual == true }.count == 4)
    try expectFusionKeepsOutputs(model.graph, referenceTolerance: .model)
  }
}
