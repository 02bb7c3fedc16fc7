import Testing
import VisageKernels
import VisageTestSupport

/// One depthwise shape of an equivalence grid; its index seeds its data.
struct DepthwiseCase: Sendable, CustomTestStringConvertible {
  var index: Int
  var channels: Int
  var height: Int
  var width: Int
  var filter: Int
  var stride: Int
  var padding: Padding
  var relu: Bool
  var multiplier = 1
  var dilation = 1
  var hasBias = true

  var geometry: ConvolutionGeometry {
    ConvolutionGeometry(
      input: nhwc(1, height, width, channels), outputChannels: channels * multiplier,
      filterHeight: filter, filterWidth: filter, strideHeight: stride, strideWidth: stride,
      dilationHeight: dilation, dilationWidth: dilation, padding: padding)
  }

  var clamp: Clamp { relu ? .relu : .none }

  var testDescription: String {
    "#\(index) \(height)x\(width)x\(channels) x\(multiplier) k\(filter) s\(stride) d\(dilation)"
      + " \(padding)\(relu ? " relu" : "")\(hasBias ? "" : " no-bias")"
  }

  func data() -> (input: [Float], filter: [Float], bias: [Float]?) {
    var random = RandomSource(seed: UInt64(index))
    let g = geometry
    return (
      random.floats(g.input.count), random.floats(filter * filter * g.output.channels),
      hasBias ? random.floats(g.output.channels) : nil
    )
  }

  static let grid: [DepthwiseCase] = {
    var cases: [DepthwiseCase] = []
    for channels in [1, 3, 7, 8, 9, 16, 17, 33] {
      for (height, width) in [(1, 1), (2, 3), (5, 5), (7, 9)] {
        for filter in [3, 5] {
          for stride in [1, 2] {
            for padding in [Padding.same, .valid] {
              for relu in [false, true] {
                let c = DepthwiseCase(
                  index: cases.count, channels: channels, height: height, width: width, filter: filter,
                  stride: stride, padding: padding, relu: relu)
                if c.geometry.output.count > 0 { cases.append(c) }
              }
            }
          }
        }
      }
    }
    return cases
  }()

  /// Depth multiplier 2 (the optimized entry point falls back to the reference), dilation,
  /// and a missing bias.
  static let extras: [DepthwiseCase] = {
    var cases: [DepthwiseCase] = []
    func add(_ make: (Int) -> DepthwiseCase) { cases.append(make(20_000 + cases.count)) }
    for channels in [1, 3, 8, 9] {
      for stride in [1, 2] {
        add {
          DepthwiseCase(
            index: $0, channels: channels, height: 5, width: 5, filter: 3, stride: stride, padding: .same, relu: false,
            multiplier: 2)
        }
      }
    }
    for channels in [3, 8, 17] {
      for padding in [Padding.same, .valid] {
        add {
          DepthwiseCase(
            index: $0, channels: channels, height: 7, width: 9, filter: 3, stride: 1, padding: padding, relu: false,
            dilation: 2)
        }
        add {
          DepthwiseCase(
            index: $0, channels: channels, height: 9, width: 9, filter: 3, stride: 2, padding: padding, relu: true,
            dilation: 3)
        }
      }
    }
    add {
      DepthwiseCase(
        index: $0, channels: 17, height: 5, width: 5, filter: 3, stride: 1, padding: .same, relu: false, hasBias: false)
    }
    add {
      DepthwiseCase(index: $0, channels: 24, height: 16, width: 16, filter: 5, stride: 2, padding: .same, relu: true)
    }
    return cases
  }()

  /// Shapes at the edges of the 3×3 row kernel: channel counts whose last block is 8 wide,
  /// a shifted 16 or a shifted 8 (12, 24, 28, 42, 56); even widths at stride 2, where only
  /// the right edge is padded; one- and two-row inputs, where the zero row stands in above
  /// and below; widths of 2 and 3, where the edge pixels meet; and 64 channels on wide rows,
  /// which the kernel splits into spans (16 columns at stride 1, 8 at stride 2).
  static let rows3x3: [DepthwiseCase] = {
    var cases: [DepthwiseCase] = []
    func add(_ make: (Int) -> DepthwiseCase) { cases.append(make(21_000 + cases.count)) }
    for channels in [8, 12, 24, 28, 42, 56, 64] {
      let sizes = channels == 64 ? [(3, 21), (4, 34), (2, 16)] : [(1, 5), (2, 2), (3, 3), (4, 8), (6, 10), (9, 7)]
      for (height, width) in sizes {
        for stride in [1, 2] {
          for padding in [Padding.same, .valid] {
            let relu = cases.count % 2 == 0
            add {
              DepthwiseCase(
                index: $0, channels: channels, height: height, width: width, filter: 3, stride: stride,
                padding: padding, relu: relu)
            }
            if cases.last!.geometry.output.count == 0 { cases.removeLast() }
          }
        }
      }
    }
    return cases
  }()
}

@Suite struct DepthwiseConvolutionTests {
  @Test(arguments: DepthwiseCase.grid)
  func optimizedMatchesReference(_ c: DepthwiseCase) {
    check(c)
  }

  @Test(arguments: DepthwiseCase.extras)
  func optimizedMatchesReferenceOnExtraShapes(_ c: DepthwiseCase) {
    check(c)
  }

  @Test(arguments: DepthwiseCase.rows3x3)
  func optimizedMatchesReferenceAtRowKernelEdges(_ c: DepthwiseCase) {
    check(c)
  }

  /// A fused PReLU (per-channel slopes after the clamp) on both the 3×3 row kernel and the
  /// general path, against the reference followed by TFLite's PRELU.
  @Test(arguments: [
    DepthwiseCase(index: 22_000, channels: 28, height: 6, width: 10, filter: 3, stride: 1, padding: .same, relu: false),
    DepthwiseCase(index: 22_001, channels: 12, height: 7, width: 8, filter: 3, stride: 2, padding: .same, relu: false),
    DepthwiseCase(index: 22_003, channels: 64, height: 3, width: 21, filter: 3, stride: 1, padding: .same, relu: true),
    DepthwiseCase(index: 22_002, channels: 17, height: 7, width: 9, filter: 5, stride: 1, padding: .same, relu: false),
  ])
  func fusedPReLUMatchesReferenceThenPReLU(_ c: DepthwiseCase) {
    let g = c.geometry
    let (input, filter, bias) = c.data()
    var random = RandomSource(seed: UInt64(c.index) + 1)
    let slopes = random.floats(g.output.channels, in: 0...1)
    let expected = Kernel.depthwise(g, input: input, filter: filter, bias: bias, clamp: c.clamp, .reference)
      .enumerated().map { i, x in x >= 0 ? x : x * slopes[i % g.output.channels] }
    var output = [Float](repeating: .nan, count: g.output.count)
    withEpilogue(bias: bias, clamp: c.clamp, slopes: slopes) {
      DepthwiseConvolution.optimized(g, input: input, filter: filter, epilogue: $0, output: &output)
    }
    expectClose(
      output, expected, .sameOrder(c.filter * c.filter), "depthwise+prelu \(c.testDescription) [\(g)]",
      shape: [g.output.batch, g.output.height, g.output.width, g.output.channels])
  }
}

/// `DepthwiseConvolution.optimized` one range of output rows at a time, in uneven parts, on
/// the 3×3 row kernel and the general path, matches the whole layer at once, bit for bit:
/// how threads share a layer.
@Test(arguments: [
  DepthwiseCase(index: 23_000, channels: 24, height: 13, width: 10, filter: 3, stride: 1, padding: .same, relu: true),
  DepthwiseCase(index: 23_001, channels: 16, height: 14, width: 9, filter: 3, stride: 2, padding: .same, relu: false),
  DepthwiseCase(index: 23_002, channels: 9, height: 11, width: 7, filter: 5, stride: 1, padding: .same, relu: false),
  DepthwiseCase(index: 23_003, channels: 8, height: 7, width: 12, filter: 3, stride: 1, padding: .valid, relu: false),
])
func depthwiseByRowRangesMatchesWholeLayer(_ c: DepthwiseCase) {
  let g = c.geometry
  let (input, filter, bias) = c.data()
  #expect(DepthwiseConvolution.splitsRows(g))
  var random = RandomSource(seed: UInt64(c.index) + 3)
  let slopes = random.floats(g.output.channels, in: 0...1)
  var whole = [Float](repeating: .nan, count: g.output.count)
  withEpilogue(bias: bias, clamp: c.clamp, slopes: slopes) {
    DepthwiseConvolution.optimized(g, input: input, filter: filter, epilogue: $0, output: &whole)
  }
  let rows = g.output.batch * g.output.height
  for parts in [2, 3, rows] {
    var pieces = [Float](repeating: .nan, count: g.output.count)
    // Last part first, so no part can lean on a neighbour having run.
    for part in (0..<parts).reversed() {
      withEpilogue(bias: bias, clamp: c.clamp, slopes: slopes) {
        DepthwiseConvolution.optimized(
          g, input: input, filter: filter, epilogue: $0, output: &pieces,
          rows: (rows * part / parts)..<(rows * (part + 1) / parts))
      }
    }
    expectClose(
      pieces, whole, .exact, "\(c.testDescription) in \(parts) parts", shape: [rows, g.output.width, g.output.channels])
  }
}

/// Compares the optimized depthwise convolution with the reference for one case.
///
/// The optimized kernel sums taps in the reference's order and adds the bias last (see
/// DepthwiseConvolution.swift): bit for bit at the baseline level, within rounding where the
/// 3×3 row kernel fuses each tap into one FMA (`Tolerance.sameOrder`).
func check(_ c: DepthwiseCase, sourceLocation: SourceLocation = #_sourceLocation) {
  let g = c.geometry
  let (input, filter, bias) = c.data()
  let reference = Kernel.depthwise(g, input: input, filter: filter, bias: bias, clamp: c.clamp, .reference)
  let optimized = Kernel.depthwise(g, input: input, filter: filter, bias: bias, clamp: c.clamp, .optimized)
  expectClose(
    optimized, reference, .sameOrder(c.filter * c.filter), "depthwise \(c.testDescription) [\(g)]",
    shape: [g.output.batch, g.output.height, g.output.width, g.output.channels],
    sourceLocation: sourceLocation)
}
