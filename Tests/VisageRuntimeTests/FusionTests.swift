import Testing
import VisageKernels
import VisageRuntime
import VisageTestSupport

/// The `residualAdd` and `activation` passes: which steps fold into their producer's
/// epilogue, and that the folded graph computes what the graph as written computes (run
/// with the reference kernels, bit for bit: the epilogue's steps then run one by one).
@Suite struct FusionTests {
  /// The passes under test, in the interpreter's order.
  static let passes: [FusionPass] = [.residualAdd, .activation]

  /// x → CONV_2D (3×3, SAME, 4 → 6 channels) → `activation`, optionally also exposing the
  /// convolution's output.
  static func convolutionThen(
    _ activation: (inout GraphSketch, Int) throws -> Int, exposeConvolution: Bool = false,
    depthwise: Bool = false
  ) throws -> GraphSketch {
    var g = GraphSketch()
    var random = RandomSource(seed: 3)
    let x = g.input("x", [1, 5, 5, 4])
    let conv: Int
    if depthwise {
      let w = try g.constant("w", [1, 3, 3, 4], random.floats(36))
      let b = try g.constant("b", [4], random.floats(4))
      conv = g.node(DepthwiseConv2D(padding: .same, strideHeight: 1, strideWidth: 1), [x, w, b], "conv", [1, 5, 5, 4])
    } else {
      let w = try g.constant("w", [4, 3, 3, 4], random.floats(144))
      let b = try g.constant("b", [4], random.floats(4))
      conv = g.node(Conv2D(padding: .same, strideHeight: 1, strideWidth: 1), [x, w, b], "conv", [1, 5, 5, 4])
    }
    let y = try activation(&g, conv)
    g.outputs = exposeConvolution ? [y, conv] : [y]
    return g
  }

  static func relu(_ g: inout GraphSketch, _ t: Int) throws -> Int {
    g.node(Unary(.relu), [t], "relu", [1, 5, 5, 4])
  }

  static func relu6(_ g: inout GraphSketch, _ t: Int) throws -> Int {
    g.node(Unary(.relu6), [t], "relu6", [1, 5, 5, 4])
  }

  static func prelu(_ g: inout GraphSketch, _ t: Int) throws -> Int {
    let slopes = try g.constant("slopes", [4], [0.1, 0.2, 0.3, 0.4])
    return g.node(Binary(.prelu), [t, slopes], "prelu", [1, 5, 5, 4])
  }

  /// The folded graph against the reference interpreter on the unfolded one.
  func expectSameOutputs(_ g: GraphSketch, sourceLocation: SourceLocation = #_sourceLocation) throws {
    var random = RandomSource(seed: 5)
    let x = try Tensor(shape: [1, 5, 5, 4], values: random.floats(100, in: -2...2))
    let expected = try run(g.graph, [x], .reference)
    for implementation in Implementation.allCases {
      let fused = try run(g.graph.applying(Self.passes), [x], implementation)
      for (k, (a, b)) in zip(fused, expected).enumerated() {
        let tolerance: Tolerance = implementation == .reference ? .exact : .reordered(36)
        expectClose(a.values, b.values, tolerance, "\(implementation) output \(k)", sourceLocation: sourceLocation)
      }
    }
  }

  @Test func reluRelu6AndPreluFoldIntoConvolutions() throws {
    for depthwise in [false, true] {
      let activations: [(inout GraphSketch, Int) throws -> Int] = [Self.relu, Self.relu6, Self.prelu]
      for activation in activations {
        let g = try Self.convolutionThen(activation, depthwise: depthwise)
        let fused = g.graph.applying(Self.passes)
        #expect(fused.nodes.count == 1, "depthwise \(depthwise): \(fused.nodes.map(\.op.name))")
        #expect(fused.nodes.last?.output == g.outputs[0])
        try expectSameOutputs(g)
      }
    }
  }

  @Test func exposedIntermediateIsNotFolded() throws {
    let g = try Self.convolutionThen(Self.relu, exposeConvolution: true)
    #expect(g.graph.applying(Self.passes).nodes.count == 2)
    try expectSameOutputs(g)
  }

  @Test func intermediateWithTwoReadersIsNotFolded() throws {
    let g = try Self.convolutionThen { g, conv in
      let r = g.node(Unary(.relu), [conv], "relu", [1, 5, 5, 4])
      return g.node(Binary(.add), [r, conv], "sum", [1, 5, 5, 4])
    }
    #expect(g.graph.applying(Self.passes).nodes.count == 3)
    try expectSameOutputs(g)
  }

  @Test func reluFoldsIntoAdd() throws {
    var g = GraphSketch()
    let x = g.input("x", [1, 5, 5, 4])
    let c = try g.constant("c", [4], [0.5, -0.5, 1, -1])
    let sum = g.node(Binary(.add), [x, c], "sum", [1, 5, 5, 4])
    g.outputs = [g.node(Unary(.relu), [sum], "relu", [1, 5, 5, 4])]
    #expect(g.graph.applying(Self.passes).nodes.count == 1)
    try expectSameOutputs(g)
  }

  /// CONV_2D → ADD of a tensor that exists before the convolution (the graph input, on
  /// either side of the ADD) → RELU: the ADD becomes a residual input, the RELU a clamp.
  @Test(arguments: [false, true])
  func residualAddAndReluFoldIntoTheConvolution(_ convolutionFirst: Bool) throws {
    let g = try Self.convolutionThen { g, conv in
      let x = g.inputs[0]
      let sum = g.node(Binary(.add), convolutionFirst ? [conv, x] : [x, conv], "sum", [1, 5, 5, 4])
      return g.node(Unary(.relu), [sum], "relu", [1, 5, 5, 4])
    }
    #expect(g.graph.applying(Self.passes).nodes.count == 1)
    try expectSameOutputs(g)
  }

  /// CONV_2D → ADD of the input → PRELU (the landmark model's block end): the ADD becomes a
  /// residual input and the PRELU an epilogue after it, whichever side the convolution is on.
  @Test(arguments: [false, true])
  func residualAddAndPReLUFoldIntoTheConvolution(_ convolutionFirst: Bool) throws {
    let g = try Self.convolutionThen { g, conv in
      let x = g.inputs[0]
      let sum = g.node(Binary(.add), convolutionFirst ? [conv, x] : [x, conv], "sum", [1, 5, 5, 4])
      return try Self.prelu(&g, sum)
    }
    let fused = g.graph.applying(Self.passes)
    #expect(fused.nodes.map(\.op.name) == ["CONV_2D"], "\(fused.nodes.map(\.op.name))")
    try expectSameOutputs(g)
  }

  /// The ADD's other operand is computed after the convolution, so it cannot be an input of
  /// the convolution: no residual fusion, and still the same answer.
  @Test func residualComputedAfterTheConvolutionIsNotFolded() throws {
    let g = try Self.convolutionThen { g, conv in
      let late = g.node(Unary(.negate), [g.inputs[0]], "late", [1, 5, 5, 4])
      return g.node(Binary(.add), [conv, late], "sum", [1, 5, 5, 4])
    }
    #expect(g.graph.applying(Self.passes).nodes.count == 3)
    try expectSameOutputs(g)
  }

  /// BlazeFace's widening block: x (4 channels) → CONV_2D to 6 channels, and x → PAD of
  /// two zero channels → ADD → RELU. The PAD and the ADD fold into the convolution, whether
  /// the PAD runs before or after it and on either side of the ADD.
  @Test(arguments: [(false, false), (false, true), (true, false), (true, true)])
  func channelPadThenAddFoldsIntoTheConvolution(_ order: (padFirst: Bool, convolutionLeft: Bool)) throws {
    let g = try Self.widening(padFirst: order.padFirst, convolutionLeft: order.convolutionLeft)
    let fused = g.graph.applying(Self.passes)
    #expect(fused.nodes.map(\.op.name) == ["CONV_2D"], "\(fused.nodes.map(\.op.name))")
    try expectSameOutputs(g)
  }

  /// A PAD that is not just zero channels after the last one, or whose output is read
  /// again, stays; the answer is the same either way.
  @Test(arguments: [0, 1, 2])
  func otherPadsAreNotFolded(_ variant: Int) throws {
    let paddings: [(before: Int, after: Int)] =
      variant == 0 ? [(0, 0), (0, 0), (0, 0), (2, 0)] : [(0, 0), (0, 0), (0, 0), (0, 2)]
    let g = try Self.widening(
      padFirst: false, convolutionLeft: true, pad: Pad(paddings: paddings, value: variant == 1 ? 1 : 0),
      exposePad: variant == 2)
    #expect(g.graph.applying(Self.passes).nodes.count == 3)
    try expectSameOutputs(g)
  }

  static func widening(
    padFirst: Bool, convolutionLeft: Bool,
    pad: Pad = Pad(paddings: [(0, 0), (0, 0), (0, 0), (0, 2)]), exposePad: Bool = false
  ) throws -> GraphSketch {
    var g = GraphSketch()
    var random = RandomSource(seed: 17)
    let x = g.input("x", [1, 5, 5, 4])
    let w = try g.constant("w", [6, 1, 1, 4], random.floats(24))
    let b = try g.constant("b", [6], random.floats(6))
    func convolution(_ g: inout GraphSketch) -> Int {
      g.node(Conv2D(padding: .valid, strideHeight: 1, strideWidth: 1), [x, w, b], "conv", [1, 5, 5, 6])
    }
    var padded = -1
    var conv = -1
    if padFirst {
      padded = g.node(pad, [x], "pad", [1, 5, 5, 6])
      conv = convolution(&g)
    } else {
      conv = convolution(&g)
      padded = g.node(pad, [x], "pad", [1, 5, 5, 6])
    }
    let sum = g.node(
      Binary(.add, clamp: .relu), convolutionLeft ? [conv, padded] : [padded, conv], "sum", [1, 5, 5, 6])
    g.outputs = exposePad ? [sum, padded] : [sum]
    return g
  }

  /// A broadcast ADD (bias-like constant or a smaller tensor) is not a residual.
  @Test func broadcastAddIsNotAResidual() throws {
    let g = try Self.convolutionThen { g, conv in
      let c = try g.constant("c", [4], [1, 2, 3, 4])
      return g.node(Binary(.add), [conv, c], "sum", [1, 5, 5, 4])
    }
    #expect(g.graph.applying(Self.passes).nodes.count == 2)
    try expectSameOutputs(g)
  }

  /// Depth multiplier 2 takes the depthwise reference fallback, which must still apply a
  /// fused PRELU.
  @Test func preluFoldsIntoADepthwiseWithMultiplier() throws {
    var g = GraphSketch()
    var random = RandomSource(seed: 21)
    let x = g.input("x", [1, 5, 5, 4])
    let w = try g.constant("w", [1, 3, 3, 8], random.floats(72))
    let b = try g.constant("b", [8], random.floats(8))
    let conv = g.node(DepthwiseConv2D(padding: .same, strideHeight: 1, strideWidth: 1), [x, w, b], "dw", [1, 5, 5, 8])
    let slopes = try g.constant("slopes", [8], random.floats(8, in: 0...1))
    g.outputs = [g.node(Binary(.prelu), [conv, slopes], "prelu", [1, 5, 5, 8])]
    #expect(g.graph.applying(Self.passes).nodes.count == 1)
    try expectSameOutputs(g)
  }

  /// Chains: conv → relu → conv → relu folds twice, keeping the order.
  @Test func consecutiveConvolutionsEachFold() throws {
    var g = try Self.convolutionThen(Self.relu)
    var random = RandomSource(seed: 9)
    let w = try g.constant("w2", [4, 1, 1, 4], random.floats(16))
    let conv2 = g.node(
      Conv2D(padding: .valid, strideHeight: 1, strideWidth: 1), [g.outputs[0], w], "conv2", [1, 5, 5, 4])
    g.outputs = [g.node(Unary(.relu6), [conv2], "relu6b", [1, 5, 5, 4])]
    let fused = g.graph.applying(Self.passes)
    #expect(fused.nodes.count == 2)
    try expectSameOutputs(g)
  }
}
