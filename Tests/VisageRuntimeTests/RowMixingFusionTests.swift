import Testing
import VisageKernels
import VisageRuntime
import VisageTFLite
import VisageTestSupport

/// The `rowMixing` pass: TRANSPOSE → 1×1 CONV_2D chain → TRANSPOSE becomes ROW_MIXING
/// operators with no transposes, bit-identical to the convolutions as written.
@Suite struct RowMixingFusionTests {
  /// x [.., k, n] → TRANSPOSE → 1×1 convolutions (k → widths…, the first with a ReLU) →
  /// TRANSPOSE → optionally ADD y; `exposeFirst` also makes the first convolution an output.
  static func chain(
    _ shape: [Int], widths: [Int], lastClamp: Clamp = .none, residual: Bool = true, exposeFirst: Bool = false
  ) throws -> GraphSketch {
    var g = GraphSketch()
    var random = RandomSource(seed: 21)
    let rank = shape.count
    let swap = Array(0..<(rank - 2)) + [rank - 1, rank - 2]
    func swapped(_ dims: [Int]) -> Shape {
      var dims = dims
      dims.swapAt(rank - 1, rank - 2)
      return Shape(dims)
    }
    let x = g.input("x", Shape(shape))
    var dims = swapped(shape).dimensions
    var value = g.node(Transpose(permutation: swap), [x], "t", Shape(dims))
    var first: Int?
    for (i, width) in widths.enumerated() {
      let k = dims[rank - 1]
      let filter = try g.constant("f\(i)", [width, 1, 1, k], random.floats(width * k, in: -0.5...0.5))
      let bias = try g.constant("b\(i)", [width], random.floats(width))
      dims[rank - 1] = width
      let clamp = i == widths.count - 1 ? lastClamp : .relu
      value = g.node(
        Conv2D(padding: .valid, strideHeight: 1, strideWidth: 1, clamp: clamp), [value, filter, bias], "c\(i)",
        Shape(dims))
      if i == 0 { first = value }
    }
    let back = swapped(dims)
    value = g.node(Transpose(permutation: swap), [value], "back", back)
    if residual {
      let y = g.input("y", back)
      value = g.node(Binary(.add), [value, y], "sum", back)
    }
    g.outputs = exposeFirst ? [value, first!] : [value]
    return g
  }

  /// Every fusion the interpreter runs, in its order.
  static func fused(_ graph: Graph) -> Graph {
    graph.fused(for: .optimized)
  }

  @Test(arguments: [
    ([1, 1, 5, 32], [7, 4]), ([2, 3, 9, 16], [12]), ([1, 1, 97, 64], [384, 97]), ([3, 1, 2, 48], [1, 9, 3]),
  ])
  func chainsBecomeRowMixing(_ shape: [Int], _ widths: [Int]) throws {
    for residual in [true, false] {
      let g = try Self.chain(shape, widths: widths, residual: residual)
      let fused = Self.fused(g.graph)
      #expect(fused.nodes.map(\.op.name) == widths.map { _ in "ROW_MIXING" }, "\(shape) \(widths)")
      #expect(fused.nodes.last?.output == g.outputs[0])
      #expect((fused.nodes.last?.op as? RowMixing)?.epilogue.addsResidual == residual)
      try expectFusionKeepsOutputs(g.graph)
    }
  }

  @Test func whatCannotFuseIsLeftAlone() throws {
    // Columns not a multiple of 16; an exposed link; a clamp before a folded residual.
    let cases = [
      try Self.chain([1, 1, 5, 24], widths: [7]),
      try Self.chain([1, 1, 5, 32], widths: [7, 4], exposeFirst: true),
      try Self.chain([1, 1, 5, 32], widths: [7], lastClamp: .relu),
    ]
    for g in cases {
      let before = g.graph.applying([.layerNorm, .transposeAdd, .residualAdd, .activation])
      #expect(FusionPass.rowMixing(before).nodes.map(\.op.name) == before.nodes.map(\.op.name))
      try expectFusionKeepsOutputs(g.graph)
    }
  }

  /// The blendshapes model's four token-mixing blocks: eight ROW_MIXING, no layer
  /// normalization writing transposed, and the same outputs. Two TRANSPOSEs stay: the
  /// input embedding's, whose matrices are 2 columns wide.
  @Test func blendshapesTokenMixingFuses() throws {
    let model = try BundledModel.faceBlendshapes.load()
    let fused = Self.fused(model.graph)
    #expect(fused.nodes.filter { $0.op is RowMixing }.count == 8)
    #expect(fused.nodes.filter { $0.op is Transpose }.count == 2)
    #expect(!fused.nodes.contains { ($0.op as? LayerNorm)?.epilogue.transposesOutput == true })
    try expectFusionKeepsOutputs(model.graph, referenceTolerance: .model)
  }
}
