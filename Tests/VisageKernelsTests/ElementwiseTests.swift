import Foundation
import Testing
import VisageKernels
import VisageTestSupport

/// Unary and binary elementwise kernels: the same formula per value in both
/// implementations, so they agree to within a rounding of the function itself.
extension Tolerance {
  static let elementwise = Tolerance(1e-6, name: "elementwise 1e-6")
}

struct UnaryCase: Sendable, CustomTestStringConvertible {
  var index: Int
  var function: UnaryFunction
  var count: Int

  var testDescription: String { "#\(index) \(function.rawValue) × \(count)" }

  /// Inputs that exercise the function: logistic across both saturation cut-offs, roots on
  /// non-negative values only.
  var range: ClosedRange<Float> {
    switch function {
    case .logistic, .tanh: -20...20
    case .squareRoot: 0...9
    case .reciprocalSquareRoot: 0.01...9
    case .relu, .relu6, .negate: -10...10
    }
  }

  static let grid: [UnaryCase] = {
    var cases: [UnaryCase] = []
    for function in UnaryFunction.allCases {
      for count in [0, 1, 7, 8, 9, 15, 16, 17, 63, 1000] {
        cases.append(UnaryCase(index: cases.count, function: function, count: count))
      }
    }
    return cases
  }()
}

struct BinaryCase: Sendable, CustomTestStringConvertible {
  var index: Int
  var function: BinaryFunction
  var lhs: [Int]
  var rhs: [Int]
  var relu: Bool

  var testDescription: String {
    "#\(index) \(function.rawValue) \(lhs) vs \(rhs)\(relu ? " relu" : "")"
  }

  /// The broadcasting pairs of the brief: equal shapes, scalars on either side, a column
  /// against a matrix, a vector against rank 4, the blendshape model's [1, 146, 2], rank 0,
  /// and lengths that are not multiples of eight.
  static let shapePairs: [([Int], [Int])] = [
    ([4, 16], [4, 16]),
    ([3, 13], [3, 13]),
    ([1, 8, 8, 24], [1, 8, 8, 24]),
    ([5, 7], []),
    ([], [5, 7]),
    ([1], [2, 9]),
    ([97, 1], [97, 64]),
    ([97, 64], [97, 1]),
    ([64], [1, 1, 97, 64]),
    ([1, 1, 97, 64], [64]),
    ([1, 146, 2], [1, 1, 2]),
    ([1, 1, 2], [1, 146, 2]),
    ([], []),
    ([11], [11]),
    ([3, 1, 7], [1, 4, 7]),
    ([2, 3, 1], [1, 1, 5]),
    ([1, 6, 6, 17], [17]),
    ([1, 6, 6, 1], [1, 1, 1, 17]),
  ]

  static let grid: [BinaryCase] = {
    var cases: [BinaryCase] = []
    for function in BinaryFunction.allCases {
      for (lhs, rhs) in shapePairs {
        for relu in [false, true] {
          cases.append(BinaryCase(index: cases.count, function: function, lhs: lhs, rhs: rhs, relu: relu))
        }
      }
    }
    return cases
  }()
}

@Suite struct ElementwiseTests {
  @Test(arguments: UnaryCase.grid)
  func unaryOptimizedMatchesReference(_ c: UnaryCase) {
    var random = RandomSource(seed: UInt64(c.index))
    var input = random.floats(c.count, in: c.range)
    // Exact edge values where the count allows: zero, and the logistic cut-offs.
    let edges: [Float] = c.function == .logistic ? [-9, 16.619047164916992188, 0] : [0]
    for (k, e) in edges.enumerated() where k < input.count && c.function != .reciprocalSquareRoot {
      input[input.count - 1 - k] = e
    }
    let reference = Kernel.unary(c.function, input, .reference)
    let optimized = Kernel.unary(c.function, input, .optimized)
    expectClose(optimized, reference, .elementwise, "unary \(c.testDescription)")
  }

  @Test(arguments: BinaryCase.grid)
  func binaryOptimizedMatchesReference(_ c: BinaryCase) throws {
    var random = RandomSource(seed: UInt64(c.index))
    let lhs = random.floats(elementCount(c.lhs), in: -4...4)
    let rhs =
      c.function == .divide
      ? random.signedFloats(elementCount(c.rhs), magnitude: 0.25...4) : random.floats(elementCount(c.rhs), in: -4...4)
    let clamp: Clamp = c.relu ? .relu : .none
    let reference = try #require(
      Kernel.binary(c.function, lhs: lhs, c.lhs, rhs: rhs, c.rhs, clamp: clamp, .reference))
    // The optimized kernel with the broadcast as resolved and as coalesced (what the BINARY
    // operator passes). Rank 0 uncoalesced has its own test in a child process below.
    for coalesced in [false, true] where coalesced || !reference.shape.isEmpty {
      let optimized = try #require(
        Kernel.binary(c.function, lhs: lhs, c.lhs, rhs: rhs, c.rhs, clamp: clamp, .optimized, coalesced: coalesced))
      #expect(optimized.shape == reference.shape)
      expectClose(
        optimized.values, reference.values, .elementwise,
        "binary \(c.testDescription)\(coalesced ? " coalesced" : "")", shape: reference.shape)
    }
  }

  /// A rank-0 broadcast that was not coalesced: the optimized kernel must still handle it
  /// (coalescing is a speed-up, not a precondition). In a child process, so that a trap
  /// such as `outputShape.last!` on a scalar fails only this test.
  @Test func scalarBroadcastWithoutCoalescing() async {
    #if compiler(>=6.2)
      await #expect(processExitsWith: .success) {
        let sum = Kernel.binary(.add, lhs: [2], [], rhs: [3], [], clamp: .none, .optimized)
        exit(sum?.values == [5] ? 0 : 1)
      }
    #else
      // Swift Testing before 6.2 has no exit tests: run in this process (a trap ends the run).
      let sum = Kernel.binary(.add, lhs: [2], [], rhs: [3], [], clamp: .none, .optimized)
      #expect(sum?.values == [5])
    #endif
  }

  /// Coalescing merges dimensions both inputs walk as one run and drops size-1 ones.
  @Test func coalescedBroadcastShapes() throws {
    let same = try #require(Broadcast(lhs: [2, 3, 4], rhs: [2, 3, 4])).coalesced
    #expect(same.outputShape == [24])
    let column = try #require(Broadcast(lhs: [97, 64], rhs: [97, 1])).coalesced
    #expect(column.outputShape == [97, 64])
    #expect(column.rhsStrides == [1, 0])
    let scalar = try #require(Broadcast(lhs: [], rhs: [])).coalesced
    #expect(scalar.count == 1)
    let channel = try #require(Broadcast(lhs: [1, 6, 6, 17], rhs: [17])).coalesced
    #expect(channel.outputShape == [36, 17])
  }

  /// The broadcast result does not depend on which side repeats: a + b == b + a.
  @Test(arguments: BinaryCase.shapePairs.indices)
  func addCommutesUnderBroadcast(_ pair: Int) throws {
    let (lhsShape, rhsShape) = BinaryCase.shapePairs[pair]
    var random = RandomSource(seed: UInt64(500 + pair))
    let a = random.floats(elementCount(lhsShape))
    let b = random.floats(elementCount(rhsShape))
    for implementation in KernelPath.allCases {
      // Coalesced for the optimized kernel, as the BINARY operator passes it.
      let coalesced = implementation == .optimized
      let ab = try #require(
        Kernel.binary(.add, lhs: a, lhsShape, rhs: b, rhsShape, clamp: .none, implementation, coalesced: coalesced))
      let ba = try #require(
        Kernel.binary(.add, lhs: b, rhsShape, rhs: a, lhsShape, clamp: .none, implementation, coalesced: coalesced))
      #expect(ab.shape == ba.shape)
      expectClose(ab.values, ba.values, .exact, "\(implementation) \(lhsShape) + \(rhsShape)")
    }
  }

  /// The epilogue applied to rows (BLAS's finish): bias per channel, clamp, then (when
  /// given) a per-channel PReLU.
  @Test func epilogueOnRowsMatchesPerChannelLoop() {
    for channels in [1, 7, 8, 9, 17, 32] {
      var random = RandomSource(seed: UInt64(900 + channels))
      let rows = 5
      let data = random.floats(rows * channels, in: -3...3)
      let bias = random.floats(channels, in: -3...3)
      let slopes = random.floats(channels, in: 0...1)
      var clamped = data
      withEpilogue(bias: bias, clamp: .relu6) { $0.apply(to: &clamped, rows: rows, channels: channels) }
      let expectedClamped = data.indices.map { Clamp.relu6(data[$0] + bias[$0 % channels]) }
      expectClose(clamped, expectedClamped, .exact, "relu6, channels \(channels)", shape: [rows, channels])
      var activated = data
      withEpilogue(bias: bias, slopes: slopes) { $0.apply(to: &activated, rows: rows, channels: channels) }
      let expectedPReLU = data.indices.map { i -> Float in
        let x = data[i] + bias[i % channels]
        return x >= 0 ? x : x * slopes[i % channels]
      }
      expectClose(activated, expectedPReLU, .exact, "prelu, channels \(channels)", shape: [rows, channels])
    }
  }
}
