import Testing
import VisageKernels
import VisageTestSupport

@testable import VisageRuntime

/// The light operators that share their rows over the pool (ADD, MAX_POOL_2D,
/// RESIZE_BILINEAR, TRANSPOSE, LAYER_NORM) give the one-thread result to the bit, on shapes
/// that split unevenly; and the split itself covers every row once, in aligned parts.
@Suite struct RowSplitTests {
  /// A context for splitting only: shapes and addresses are not used.
  static func context(threads: Int) -> OperatorContext {
    OperatorContext(
      inputShapes: [], outputShape: Shape([1]), constants: [], inputs: [],
      output: UnsafeMutablePointer(bitPattern: 64)!, implementation: .optimized,
      pool: ThreadPool(threadCount: threads))
  }

  @Test(arguments: [(1, 1), (5, 1), (97, 16), (100, 16), (6208, 16), (33, 16), (7, 2)])
  func partsCoverEveryRowOnceAndAligned(_ count: Int, _ alignment: Int) {
    for threads in [2, 3] {
      let parts = Self.context(threads: threads).parts(of: count, Work(.elementwise, 5_000_000), alignment: alignment)
      #expect(parts.first?.lowerBound == 0 && parts.last?.upperBound == count)
      #expect(zip(parts, parts.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
      #expect(parts.allSatisfy { !$0.isEmpty && $0.lowerBound % alignment == 0 })
      #expect(parts.count <= 2 * threads)
      if count >= 2 * alignment { #expect(parts.count > 1, "\(count) rows by \(alignment) on \(threads) threads") }
    }
  }

  @Test func smallWorkStaysOnOnePart() {
    let context = Self.context(threads: 2)
    // 10,000 values of an elementwise operator are 2 µs, the minimum.
    #expect(context.parts(of: 1000, Work(.elementwise, 9_999)) == [0..<1000])
    #expect(context.parts(of: 1000, Work(.elementwise, 10_000)).count == 4)
    // A convolution needs 100,000 multiply-adds, and is cut into four parts per thread.
    #expect(context.parts(of: 1000, Work(.convolution, 99_999)) == [0..<1000])
    #expect(context.parts(of: 1000, Work(.convolution, 100_000)).count == 8)
    #expect(!context.shares(Work(.paddedCopy, 32_767)) && context.shares(Work(.paddedCopy, 32_768)))
  }

  /// One-node graphs large enough to split, run on three threads and on one.
  static func graphs() throws -> [(String, Graph)] {
    var cases: [(String, Graph)] = []
    func single(_ name: String, _ op: any Operator, _ inputs: [Shape], _ output: Shape) {
      var g = GraphSketch()
      let ids = inputs.enumerated().map { g.input("x\($0.offset)", $0.element) }
      g.outputs = [g.node(op, ids, "y", output)]
      cases.append((name, g.graph))
    }
    single(
      "ADD", Binary(.add, clamp: .relu6), [Shape([1, 37, 41, 13]), Shape([1, 37, 41, 13])], Shape([1, 37, 41, 13]))
    single("ADD broadcast", Binary(.add), [Shape([37, 41, 13]), Shape([13])], Shape([37, 41, 13]))
    single(
      "MAX_POOL 2x2/2 same",
      MaxPool2D(padding: .same, strideHeight: 2, strideWidth: 2, filterHeight: 2, filterWidth: 2),
      [Shape([2, 67, 45, 27])], Shape([2, 34, 23, 27]))
    single(
      "MAX_POOL 3x3/1 valid",
      MaxPool2D(padding: .valid, strideHeight: 1, strideWidth: 1, filterHeight: 3, filterWidth: 3),
      [Shape([1, 40, 33, 20])], Shape([1, 38, 31, 20]))
    for (corners, half) in [(false, false), (true, false), (false, true)] {
      single(
        "RESIZE_BILINEAR corners \(corners) half \(half)",
        ResizeBilinear(height: 26, width: 22, options: .init(alignCorners: corners, halfPixelCenters: half)),
        [Shape([2, 13, 11, 29])], Shape([2, 26, 22, 29]))
    }
    single("TRANSPOSE", Transpose(permutation: [0, 1, 3, 2]), [Shape([1, 2, 67, 101])], Shape([1, 2, 101, 67]))
    single(
      "TRANSPOSE + ADD", Transpose(permutation: [0, 2, 1], epilogue: Epilogue(addsResidual: true)),
      [Shape([1, 97, 64]), Shape([1, 64, 97])], Shape([1, 64, 97]))
    cases.append(("LAYER_NORM transposed", try LayerNormFusionTests.layerNorm([1, 1, 97, 64], transpose: true).graph))
    cases.append(("LAYER_NORM", try LayerNormFusionTests.layerNorm([3, 700, 13]).graph))
    return cases
  }

  @Test func threadedOperatorsMatchOneThread() throws {
    for (name, graph) in try Self.graphs() {
      var random = RandomSource(seed: 3)
      let inputs = try graph.inputs.map { id in
        let shape = graph.tensors[id].shape
        return try Tensor(shape: shape, values: random.floats(shape.count, in: -8...8))
      }
      let single = try Interpreter(graph: graph).run(inputs)
      let threaded = try Interpreter(graph: graph, pool: ThreadPool(threadCount: 3))
      for _ in 0..<2 {
        let outputs = try threaded.run(inputs)
        for (ours, ref) in zip(outputs, single) {
          expectClose(ours.values, ref.values, .exact, "\(name) on 3 threads", shape: ref.shape.dimensions)
        }
      }
    }
  }
}
