import Testing
import VisageKernels
import VisageTestSupport

/// One max-pool shape of an equivalence grid; its index seeds its data.
struct PoolingCase: Sendable, CustomTestStringConvertible {
  var index: Int
  var channels: Int
  var height: Int
  var width: Int
  var filterHeight: Int
  var filterWidth: Int
  var stride: Int
  var padding: Padding
  var clamp: Clamp
  var batch = 1

  var geometry: PoolingGeometry {
    PoolingGeometry(
      input: nhwc(batch, height, width, channels), filterHeight: filterHeight, filterWidth: filterWidth,
      strideHeight: stride, strideWidth: stride, padding: padding)
  }

  var testDescription: String {
    "#\(index) \(batch)x\(height)x\(width)x\(channels) k\(filterHeight)x\(filterWidth) s\(stride) \(padding)"
      + (clamp.isNone ? "" : " clamp \(clamp.lowerBound)...\(clamp.upperBound)")
  }

  static let grid: [PoolingCase] = {
    var cases: [PoolingCase] = []
    for channels in [1, 3, 8, 9, 17] {
      for (height, width) in [(1, 1), (2, 3), (5, 5), (7, 9)] {
        for (fh, fw) in [(1, 1), (2, 2), (3, 3), (2, 3)] {
          for stride in [1, 2] {
            for padding in [Padding.same, .valid] {
              for clamp in [Clamp.none, .relu6] {
                let c = PoolingCase(
                  index: cases.count, channels: channels, height: height, width: width, filterHeight: fh,
                  filterWidth: fw, stride: stride, padding: padding, clamp: clamp)
                if c.geometry.output.count > 0 { cases.append(c) }
              }
            }
          }
        }
      }
    }
    cases.append(
      PoolingCase(
        index: cases.count, channels: 9, height: 6, width: 4, filterHeight: 2, filterWidth: 2, stride: 2,
        padding: .same, clamp: .relu, batch: 3))
    // The 2×2 row kernel: channel tails of 8, a shifted 16 and a shifted 8; odd sizes,
    // where SAME padding leaves a last row and column of clipped windows; stride 1 too.
    for channels in [12, 24, 28, 42] {
      for (height, width) in [(4, 6), (5, 7), (8, 3)] {
        for stride in [1, 2] {
          cases.append(
            PoolingCase(
              index: cases.count, channels: channels, height: height, width: width, filterHeight: 2,
              filterWidth: 2, stride: stride, padding: .same, clamp: stride == 1 ? .none : .relu6,
              batch: channels == 28 ? 2 : 1))
        }
      }
    }
    return cases
  }()
}

@Suite struct PoolingTests {
  /// A maximum involves no arithmetic, so the two kernels must agree exactly.
  @Test(arguments: PoolingCase.grid)
  func optimizedMatchesReference(_ c: PoolingCase) {
    let g = c.geometry
    var random = RandomSource(seed: UInt64(c.index))
    // Mostly negative values, so a padding zero sneaking into a window would show.
    let input = random.floats(g.input.count, in: -8...2)
    let reference = Kernel.maxPool(g, input: input, clamp: c.clamp, .reference)
    let optimized = Kernel.maxPool(g, input: input, clamp: c.clamp, .optimized)
    expectClose(
      optimized, reference, .exact, "max pool \(c.testDescription)",
      shape: [g.output.batch, g.output.height, g.output.width, g.output.channels])
  }
}
