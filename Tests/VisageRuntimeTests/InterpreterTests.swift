import Foundation
import Testing
import VisageKernels
import VisageRuntime
import VisageTFLite
import VisageTestSupport

/// The interpreter's checks on graphs built directly from `Graph` and `Node` values, and
/// its memory plan.
@Suite struct InterpreterTests {
  // MARK: Graph errors

  @Test func readingATensorBeforeItIsWritten() {
    var g = GraphSketch()
    let x = g.input("x", [2])
    let later = g.tensor("later", [2])
    let a = g.node(Unary(.relu), [later], "a", [2])
    g.nodes.append(Node(op: Unary(.negate), inputs: [x], output: later, location: "nodes[1]"))
    g.outputs = [a]
    expectRuntimeError(g.graph, invalidGraph, containing: ["nodes[0].inputs[0]", "'later'", "before"])
  }

  @Test func writingATensorTwice() {
    var g = GraphSketch()
    let x = g.input("x", [2])
    let a = g.node(Unary(.relu), [x], "a", [2])
    g.nodes.append(Node(op: Unary(.negate), inputs: [x], output: a, location: "nodes[1]"))
    g.outputs = [a]
    expectRuntimeError(g.graph, invalidGraph, containing: ["nodes[1]", "'a'", "already"])
  }

  @Test func writingAnInputOrAConstant() throws {
    var g = GraphSketch()
    let x = g.input("x", [2])
    let c = try g.constant("c", [2], [1, 2])
    g.nodes.append(Node(op: Unary(.relu), inputs: [x], output: x, location: "nodes[0]"))
    g.outputs = [x]
    expectRuntimeError(g.graph, invalidGraph, containing: ["nodes[0]", "already"])
    g.nodes = [Node(op: Unary(.relu), inputs: [x], output: c, location: "nodes[0]")]
    g.outputs = [c]
    expectRuntimeError(g.graph, invalidGraph, containing: ["nodes[0]", "'c'", "already"])
  }

  @Test func declaredShapeDisagreesWithTheComputedOne() {
    var g = GraphSketch()
    let x = g.input("x", [2, 3])
    g.outputs = [g.node(Unary(.relu), [x], "y", [3, 2])]
    expectRuntimeError(g.graph, invalidGraph, containing: ["nodes[0]", "RELU", "[2, 3]", "[3, 2]", "'y'"])
  }

  @Test func tensorIdsOutOfRange() {
    var g = GraphSketch()
    let x = g.input("x", [2])
    g.outputs = [g.node(Binary(.add), [x, 9], "y", [2])]
    expectRuntimeError(g.graph, invalidGraph, containing: ["nodes[0].inputs[1]", "9"])
    g = GraphSketch()
    _ = g.input("x", [2])
    g.inputs.append(-1)
    g.outputs = [0]
    expectRuntimeError(g.graph, invalidGraph, containing: ["inputs[1]", "-1"])
    g = GraphSketch()
    _ = g.input("x", [2])
    g.outputs = [4]
    expectRuntimeError(g.graph, invalidGraph, containing: ["outputs[0]", "4"])
  }

  /// An out-of-range tensor id must be an error even where the optimized interpreter's
  /// activation fusion looks at the graph. Run in a child process (an exit test) because
  /// the failure this guards against is a trap: fusion once indexed `tensors` before the
  /// graph was validated.
  @Test func outOfRangeIdNextToAFusablePReLUIsAnError() async {
    #if compiler(>=6.2)
      await #expect(processExitsWith: .success) { InterpreterTests.buildFusableGraphWithBadId(residual: false) }
    #else
      // No exit tests before Swift Testing 6.2: in this process (a trap ends the run).
      #expect(throws: (any Error).self) {
        try Interpreter(graph: InterpreterTests.fusableGraphWithBadId(residual: false), implementation: .optimized)
      }
    #endif
  }

  @Test func outOfRangeIdNextToAFusableResidualAddIsAnError() async {
    #if compiler(>=6.2)
      await #expect(processExitsWith: .success) { InterpreterTests.buildFusableGraphWithBadId(residual: true) }
    #else
      // No exit tests before Swift Testing 6.2: in this process (a trap ends the run).
      #expect(throws: (any Error).self) {
        try Interpreter(graph: InterpreterTests.fusableGraphWithBadId(residual: true), implementation: .optimized)
      }
    #endif
  }

  /// Exits 0 when the interpreter refuses a graph naming tensor 99 of 4, 2 when it accepts it.
  /// `_exit`, not `exit`: the child ends mid-test on purpose, and LeakSanitizer's at-exit
  /// check (the AddressSanitizer step of `.ci/run`) would count what it still holds as leaks.
  static func buildFusableGraphWithBadId(residual: Bool) -> Never {
    do {
      _ = try Interpreter(graph: fusableGraphWithBadId(residual: residual), implementation: .optimized)
      _exit(2)
    } catch {
      _exit(0)
    }
  }

  static func fusableGraphWithBadId(residual: Bool) -> Graph {
    var g = GraphSketch()
    let x = g.input("x", [1, 3, 3, 1])
    let w = try! g.constant("w", [1, 1, 1, 1], [1])
    if residual {
      // CONV_2D → ADD whose other operand is tensor 99.
      let conv = g.node(Conv2D(padding: .valid, strideHeight: 1, strideWidth: 1), [x, w], "conv", [1, 3, 3, 1])
      g.outputs = [g.node(Binary(.add), [conv, 99], "y", [1, 3, 3, 1])]
    } else {
      // CONV_2D writes tensor 99; PRELU reads it.
      let slopes = try! g.constant("s", [1], [0.5])
      g.nodes.append(
        Node(
          op: Conv2D(padding: .valid, strideHeight: 1, strideWidth: 1), inputs: [x, w], output: 99,
          location: "nodes[0]"))
      g.outputs = [g.node(Binary(.prelu), [99, slopes], "y", [1, 3, 3, 1])]
    }
    return g.graph
  }

  @Test func outputThatIsNeverWritten() {
    var g = GraphSketch()
    let x = g.input("x", [2])
    _ = g.node(Unary(.relu), [x], "y", [2])
    g.outputs = [g.tensor("orphan", [2])]
    expectRuntimeError(g.graph, invalidGraph, containing: ["outputs[0]", "never written"])
  }

  @Test func inputThatIsAlsoAConstant() throws {
    var g = GraphSketch()
    let c = try g.constant("c", [2], [1, 2])
    g.inputs = [c]
    g.outputs = [c]
    expectRuntimeError(g.graph, invalidGraph, containing: ["constant"])
  }

  @Test func operatorShapeErrorsNameTheNode() {
    var g = GraphSketch()
    let x = g.input("x", [2])
    let y = g.input("y", [3])
    g.outputs = [g.node(Binary(.add), [x, y], "z", [3])]
    expectRuntimeError(g.graph, invalidOperator, containing: ["nodes[0]", "ADD", "[2]", "[3]"])
  }

  @Test func convolutionNeedsAConstantFilter() {
    var g = GraphSketch()
    let x = g.input("x", [1, 3, 3, 2])
    let w = g.input("w", [4, 1, 1, 2])
    g.outputs = [g.node(Conv2D(padding: .valid, strideHeight: 1, strideWidth: 1), [x, w], "y", [1, 3, 3, 4])]
    expectRuntimeError(g.graph, invalidOperator, containing: ["nodes[0]", "CONV_2D", "filter", "constant"])
  }

  @Test(arguments: [(0, 1), (1, -2), (1, 1 << 20)])
  func nonPositiveOrAbsurdStridesAreRefused(_ stride: Int, _ dilation: Int) throws {
    var g = GraphSketch()
    let x = g.input("x", [1, 4, 4, 1])
    let w = try g.constant("w", [1, 1, 4, 1], [1, 1, 1, 1])
    let op = DepthwiseConv2D(
      padding: .same, strideHeight: stride, strideWidth: 1, dilationHeight: dilation, dilationWidth: 1)
    g.outputs = [g.node(op, [x, w], "y", [1, 4, 4, 1])]
    expectRuntimeError(g.graph, invalidOperator, containing: ["nodes[0]", "DEPTHWISE_CONV_2D"])
  }

  @Test func windowLargerThanTheInputIsRefused() throws {
    var g = GraphSketch()
    let x = g.input("x", [1, 2, 2, 1])
    let w = try g.constant("w", [1, 3, 3, 1], Array(repeating: 1, count: 9))
    g.outputs = [g.node(Conv2D(padding: .valid, strideHeight: 1, strideWidth: 1), [x, w], "y", [1, 1, 1, 1])]
    expectRuntimeError(g.graph, invalidOperator, containing: ["nodes[0]", "larger than the input"])
  }

  @Test func runChecksItsInputs() throws {
    var g = GraphSketch()
    let x = g.input("x", [2, 2])
    g.outputs = [g.node(Unary(.relu), [x], "y", [2, 2])]
    let interpreter = try Interpreter(graph: g.graph)
    let wrongCount = try requireThrows(RuntimeError.self) { try interpreter.run([]) }
    guard case .invalidInput = wrongCount else {
      Issue.record("\(wrongCount)")
      return
    }
    let four = try Tensor(shape: [2, 2], values: [1, -2, 3, -4])
    #expect(throws: RuntimeError.self) { try interpreter.run([four, four]) }
    let wrongSize = try requireThrows(RuntimeError.self) {
      try interpreter.run([try Tensor(shape: [3], values: [1, 2, 3])])
    }
    guard case .invalidInput(let message) = wrongSize else {
      Issue.record("\(wrongSize)")
      return
    }
    #expect(message.contains("[2, 2]"), "\(message)")
    #expect(try interpreter.run([four]) == [try Tensor(shape: [2, 2], values: [1, 0, 3, 0])])
  }

  @Test func tensorChecksItsValueCount() {
    #expect(throws: RuntimeError.self) { try Tensor(shape: [2, 3], values: [1, 2, 3]) }
    #expect(Tensor(zeros: [2, 3]).values == [0, 0, 0, 0, 0, 0])
    #expect(Shape([3, -1]).checkedCount == nil)
    #expect(Shape([1 << 40, 1 << 40]).checkedCount == nil)
    #expect(Shape([]).count == 1)
  }

  // MARK: Memory plan

  /// A skip connection: x must survive the chain of in-between tensors that recycle arena
  /// slots, because the last node reads it again.
  @Test(arguments: Implementation.allCases, [false, true])
  func skipConnectionSurvivesSlotReuse(_ implementation: Implementation, _ preserving: Bool) throws {
    var g = GraphSketch()
    let x = g.input("x", [1, 3, 3, 8])
    // t0 = relu(x), then five negations: t5 = -relu(x), so y = x - relu(x) = min(x, 0).
    var t = g.node(Unary(.relu), [x], "t0", [1, 3, 3, 8])
    for k in 1..<6 {
      t = g.node(Unary(.negate), [t], "t\(k)", [1, 3, 3, 8])
    }
    g.outputs = [g.node(Binary(.add), [x, t], "y", [1, 3, 3, 8])]
    var random = RandomSource(seed: 7)
    let values = random.floats(72)
    let y = try run(
      g.graph, [try Tensor(shape: [1, 3, 3, 8], values: values)], implementation, preservingAllTensors: preserving)
    #expect(y.first?.values == values.map { min($0, 0) })
  }

  /// Preserving every tensor changes only where tensors live (and turns fusion off), not
  /// what the model computes.
  @Test(arguments: BundledModel.allCases)
  func preservingAllTensorsGivesTheSameOutputs(_ bundled: BundledModel) throws {
    let model = try bundled.load()
    for implementation in [Implementation.reference, .optimized] {
      let planned = try Interpreter(model: model, implementation: implementation)
      let preserved = try Interpreter(model: model, implementation: implementation, preservingAllTensors: true)
      var random = RandomSource(seed: 11)
      let inputs = try planned.inputShapes.map { try Tensor(shape: $0, values: random.floats($0.count)) }
      let a = try planned.run(inputs)
      let b = try preserved.run(inputs)
      for (k, (x, y)) in zip(a, b).enumerated() {
        // Fusion changes nothing in the arithmetic, so even optimized should agree exactly;
        // allow the model tolerance in case a fused epilogue rounds differently.
        expectClose(
          x.values, y.values, implementation == .reference ? .exact : .model, "\(bundled) \(implementation) output \(k)"
        )
      }
      // Every node's output is still readable after the run, and the outputs match.
      for node in preserved.graph.nodes {
        #expect(preserved.value(ofTensor: node.output) != nil, "\(bundled) tensor \(node.output)")
      }
      for (k, id) in preserved.graph.outputs.enumerated() {
        #expect(preserved.value(ofTensor: id) == b[k])
      }
    }
  }

  /// A convolution packs its filter from the model's values, so the optimized interpreter
  /// copies only the bias it reads by address; the reference reads both where they lie.
  @Test func onlyConstantsReadByAddressAreCopied() throws {
    var g = GraphSketch()
    var random = RandomSource(seed: 5)
    let x = g.input("x", [1, 4, 4, 3])
    let w = try g.constant("w", [5, 1, 1, 3], random.floats(15))
    let b = try g.constant("b", [5], random.floats(5))
    g.outputs = [g.node(Conv2D(padding: .valid, strideHeight: 1, strideWidth: 1), [x, w, b], "y", [1, 4, 4, 5])]
    let input = try Tensor(shape: [1, 4, 4, 3], values: random.floats(48))
    let optimized = try Interpreter(graph: g.graph)
    let reference = try Interpreter(graph: g.graph, implementation: .reference)
    #expect(optimized.copiedConstants == [b])
    #expect(reference.copiedConstants == [w, b])
    let (fast, slow) = (try optimized.run([input])[0].values, try reference.run([input])[0].values)
    #expect(zip(fast, slow).allSatisfy { abs($0 - $1) <= 1e-5 })
    #expect(optimized.value(ofTensor: w)?.values == g.graph.constants[w]?.values)
  }

  @Test func valueOfTensorCoversConstantsAndUnknownIds() throws {
    var g = GraphSketch()
    let x = g.input("x", [2])
    let c = try g.constant("c", [2], [10, 20])
    g.outputs = [g.node(Binary(.add), [x, c], "y", [2])]
    let interpreter = try Interpreter(graph: g.graph, preservingAllTensors: true)
    _ = try interpreter.run([try Tensor(shape: [2], values: [1, 2])])
    #expect(interpreter.value(ofTensor: c)?.values == [10, 20])
    #expect(interpreter.value(ofTensor: x)?.values == [1, 2])
    #expect(interpreter.value(ofTensor: 99) == nil)
  }
}
