import Testing
import VisageKernels
import VisageTestSupport

struct ReductionCase: Sendable, CustomTestStringConvertible {
  var index: Int
  var kind: Reduction.Kind
  var shape: [Int]
  var axes: [Int]

  /// Values summed into each output.
  var length: Int { axes.reduce(1) { $0 * shape[$1] } }

  var testDescription: String { "#\(index) \(kind.rawValue) \(shape) over \(axes)" }

  /// Every subset of the four axes (the empty one included), for sum and mean, on a shape
  /// with distinct sizes and on one with unit dimensions and an inner size of 9.
  static let grid: [ReductionCase] = {
    var cases: [ReductionCase] = []
    for shape in [[2, 3, 5, 7], [3, 1, 17, 9], [1, 12, 12, 24]] {
      for mask in 0..<16 {
        let axes = (0..<4).filter { mask & (1 << $0) != 0 }
        for kind in [Reduction.Kind.sum, .mean] {
          cases.append(ReductionCase(index: cases.count, kind: kind, shape: shape, axes: axes))
        }
      }
    }
    // Axes out of order, as a model may list them.
    cases.append(ReductionCase(index: cases.count, kind: .mean, shape: [1, 12, 12, 24], axes: [2, 1]))
    cases.append(ReductionCase(index: cases.count, kind: .sum, shape: [4, 6, 5, 3], axes: [3, 0]))
    return cases
  }()
}

@Suite struct ReductionTests {
  @Test(arguments: ReductionCase.grid)
  func optimizedMatchesReference(_ c: ReductionCase) {
    var random = RandomSource(seed: UInt64(c.index))
    let input = random.floats(elementCount(c.shape))
    let reference = Kernel.reduce(c.kind, input, shape: c.shape, axes: c.axes, .reference)
    let optimized = Kernel.reduce(c.kind, input, shape: c.shape, axes: c.axes, .optimized)
    expectClose(optimized, reference, .reordered(c.length), "reduction \(c.testDescription)")
  }

  /// A mean of a constant is that constant, whatever the axes.
  @Test(arguments: KernelPath.allCases)
  func meanOfConstant(_ implementation: KernelPath) {
    let shape = [2, 3, 4, 9]
    let input = [Float](repeating: 0.75, count: elementCount(shape))
    for mask in 1..<16 {
      let axes = (0..<4).filter { mask & (1 << $0) != 0 }
      let out = Kernel.reduce(.mean, input, shape: shape, axes: axes, implementation)
      #expect(out.allSatisfy { $0 == 0.75 }, "\(implementation) axes \(axes): \(out.prefix(4))")
    }
  }
}
