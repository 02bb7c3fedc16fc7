import Testing
import VisageKernels
import VisageTestSupport

/// One convolution shape of an equivalence grid; its index seeds its data.
struct ConvolutionCase: Sendable, CustomTestStringConvertible {
  var index: Int
  var channels: Int
  var height: Int
  var width: Int
  var outputChannels: Int
  var filterHeight: Int
  var filterWidth: Int
  var stride: Int
  var dilation = 1
  var padding: Padding
  var relu: Bool
  var hasBias = true
  var batch = 1

  var geometry: ConvolutionGeometry {
    ConvolutionGeometry(
      input: nhwc(batch, height, width, channels), outputChannels: outputChannels,
      filterHeight: filterHeight, filterWidth: filterWidth, strideHeight: stride, strideWidth: stride,
      dilationHeight: dilation, dilationWidth: dilation, padding: padding)
  }

  var clamp: Clamp { relu ? .relu : .none }

  var testDescription: String {
    "#\(index) \(batch)x\(height)x\(width)x\(channels) -> \(outputChannels) k\(filterHeight)x\(filterWidth)"
      + " s\(stride) d\(dilation) \(padding)\(relu ? " relu" : "")\(hasBias ? "" : " no-bias")"
  }

  /// Input, OHWI filter and bias drawn from the case's seed.
  func data() -> (input: [Float], filter: [Float], bias: [Float]?) {
    var random = RandomSource(seed: UInt64(index))
    let g = geometry
    let input = random.floats(g.input.count)
    let filter = random.floats(g.output.channels * g.patchSize)
    let bias = hasBias ? random.floats(g.output.channels) : nil
    return (input, filter, bias)
  }

  /// The cartesian grid of the brief, minus shapes with an empty output; output channels
  /// rotate through below, at and above the SIMD width.
  static let grid: [ConvolutionCase] = {
    var cases: [ConvolutionCase] = []
    let outputChoices = [1, 8, 13, 16, 3]
    for channels in [1, 3, 8, 9, 17] {
      for (height, width) in [(1, 1), (2, 3), (5, 5), (7, 9)] {
        for filter in [1, 2, 3, 5] {
          for stride in [1, 2] {
            for padding in [Padding.same, .valid] {
              for relu in [false, true] {
                let c = ConvolutionCase(
                  index: cases.count, channels: channels, height: height, width: width,
                  outputChannels: outputChoices[cases.count % outputChoices.count],
                  filterHeight: filter, filterWidth: filter, stride: stride, padding: padding, relu: relu)
                if c.geometry.output.count > 0 { cases.append(c) }
              }
            }
          }
        }
      }
    }
    return cases
  }()

  /// Shapes the main grid does not reach: batches, dilation, rectangular filters, no bias,
  /// and wide inputs where BLAS takes its blocked paths.
  static let extras: [ConvolutionCase] = {
    var cases: [ConvolutionCase] = []
    func add(_ make: (Int) -> ConvolutionCase) { cases.append(make(10_000 + cases.count)) }
    add {
      ConvolutionCase(
        index: $0, channels: 3, height: 6, width: 5, outputChannels: 4, filterHeight: 3, filterWidth: 3, stride: 1,
        padding: .same, relu: false, batch: 2)
    }
    add {
      ConvolutionCase(
        index: $0, channels: 4, height: 9, width: 9, outputChannels: 5, filterHeight: 3, filterWidth: 3, stride: 1,
        dilation: 2, padding: .same, relu: false)
    }
    add {
      ConvolutionCase(
        index: $0, channels: 4, height: 9, width: 9, outputChannels: 5, filterHeight: 3, filterWidth: 3, stride: 2,
        dilation: 3, padding: .valid, relu: true)
    }
    add {
      ConvolutionCase(
        index: $0, channels: 5, height: 7, width: 6, outputChannels: 6, filterHeight: 1, filterWidth: 3, stride: 1,
        padding: .same, relu: false)
    }
    add {
      ConvolutionCase(
        index: $0, channels: 5, height: 7, width: 6, outputChannels: 6, filterHeight: 3, filterWidth: 1, stride: 2,
        padding: .valid, relu: false)
    }
    add {
      ConvolutionCase(
        index: $0, channels: 9, height: 5, width: 5, outputChannels: 9, filterHeight: 3, filterWidth: 3, stride: 1,
        padding: .same, relu: true, hasBias: false)
    }
    add {
      ConvolutionCase(
        index: $0, channels: 16, height: 4, width: 4, outputChannels: 24, filterHeight: 1, filterWidth: 1, stride: 1,
        padding: .valid, relu: false, hasBias: false)
    }
    add {
      ConvolutionCase(
        index: $0, channels: 32, height: 16, width: 16, outputChannels: 48, filterHeight: 1, filterWidth: 1, stride: 1,
        padding: .same, relu: true)
    }
    add {
      ConvolutionCase(
        index: $0, channels: 24, height: 12, width: 12, outputChannels: 32, filterHeight: 3, filterWidth: 3, stride: 2,
        padding: .same, relu: false)
    }
    add {
      ConvolutionCase(
        index: $0, channels: 3, height: 32, width: 32, outputChannels: 16, filterHeight: 5, filterWidth: 5, stride: 2,
        padding: .same, relu: true)
    }
    // Eight output channels (one half panel) over 13 to 42 output pixels, with filters of
    // several rows: twelve-row half-panel tiles (where tiles are six rows) summing over
    // several segments, then a remainder.
    add {
      ConvolutionCase(
        index: $0, channels: 5, height: 6, width: 7, outputChannels: 8, filterHeight: 3, filterWidth: 3, stride: 1,
        padding: .same, relu: true)
    }
    add {
      ConvolutionCase(
        index: $0, channels: 3, height: 5, width: 5, outputChannels: 8, filterHeight: 2, filterWidth: 2, stride: 1,
        padding: .same, relu: false, hasBias: false)
    }
    add {
      ConvolutionCase(
        index: $0, channels: 7, height: 9, width: 8, outputChannels: 8, filterHeight: 3, filterWidth: 2, stride: 2,
        padding: .valid, relu: false)
    }
    return cases
  }()
}

@Suite struct ConvolutionTests {
  @Test(arguments: ConvolutionCase.grid)
  func optimizedMatchesReference(_ c: ConvolutionCase) {
    check(c)
  }

  @Test(arguments: ConvolutionCase.extras)
  func optimizedMatchesReferenceOnExtraShapes(_ c: ConvolutionCase) {
    check(c)
  }

  /// A plan is reusable: a second run on new data matches the reference again.
  @Test func planRunsTwice() {
    let c = ConvolutionCase.extras[0]
    let g = c.geometry
    let (input, filter, bias) = c.data()
    let plan = filter.withUnsafeBufferPointer { f in
      withEpilogue(bias: bias, clamp: c.clamp) { ConvolutionPlan(g, filter: f, epilogue: $0) }
    }
    for seed in [UInt64(1), 2] {
      var random = RandomSource(seed: seed)
      let x = seed == 1 ? input : random.floats(input.count)
      var output = [Float](repeating: .nan, count: g.output.count)
      plan.run(input: x, output: &output)
      let expected = Kernel.convolution(g, input: x, filter: filter, bias: bias, clamp: c.clamp, nil)
      expectClose(
        output, expected, .reordered(g.patchSize), "run \(seed)",
        shape: [1, g.output.height, g.output.width, g.output.channels])
    }
  }

  /// The fused finishes: a residual of the output's shape or of fewer channels (a zero PAD
  /// of the channels before the ADD), and a PReLU, against the reference convolution
  /// followed by the separate operators, and both together. Output channels cover whole, half and odd panels;
  /// residual channels end inside, at and before a panel's edge. Rows of 11 pixels give
  /// 3×3 windows a full 8-row tile and a tail.
  @Test(arguments: [
    (24, 24), (28, 24), (32, 28), (42, 36), (48, 42), (13, 5), (13, 13), (40, 8), (20, 17),
  ])
  func fusedResidualAndPReLUMatchSeparateOperators(_ channels: (output: Int, residual: Int)) {
    for (index, filter) in [1, 3].enumerated() {
      let c = ConvolutionCase(
        index: 40_000 + channels.output * 100 + channels.residual * 2 + index, channels: 5,
        height: 5, width: 11, outputChannels: channels.output, filterHeight: filter,
        filterWidth: filter, stride: 1, padding: .same, relu: false)
      let g = c.geometry
      let (input, weights, bias) = c.data()
      var random = RandomSource(seed: UInt64(c.index) + 1)
      let pixels = g.output.count / g.output.channels
      let residual = random.floats(pixels * channels.residual)
      let slopes = random.floats(g.output.channels, in: 0...1)
      let conv = Kernel.convolution(g, input: input, filter: weights, bias: bias, clamp: .none, nil)
      // TFLite's separate steps after the convolution: PAD (zeros after the residual's
      // channels) and ADD when `withResidual`, then `finish` on each value and its channel.
      func separately(withResidual: Bool, _ finish: (Float, Int) -> Float) -> [Float] {
        conv.indices.map { i in
          let (pixel, channel) = i.quotientAndRemainder(dividingBy: g.output.channels)
          guard withResidual else { return finish(conv[i], channel) }
          return finish(
            conv[i] + (channel < channels.residual ? residual[pixel * channels.residual + channel] : 0), channel)
        }
      }
      let prelu = { (x: Float, channel: Int) in x >= 0 ? x : x * slopes[channel] }
      let added = separately(withResidual: true) { x, _ in Clamp.relu(x) }
      let preluOutput = separately(withResidual: false, prelu)
      let addedThenPReLU = separately(withResidual: true, prelu)
      for backend in [ConvolutionPlan.Backend.packed, .blas] {
        let tolerance: Tolerance = backend == .packed ? .sameOrder(g.patchSize) : .reordered(g.patchSize)
        let shape = [g.output.batch, g.output.height, g.output.width, g.output.channels]
        let withResidual = weights.withUnsafeBufferPointer { f in
          withEpilogue(bias: bias, clamp: .relu) { ConvolutionPlan(g, filter: f, epilogue: $0, backend: backend) }
        }
        var output = [Float](repeating: .nan, count: g.output.count)
        withResidual.run(input: input, output: &output, residual: residual, residualChannels: channels.residual)
        expectClose(output, added, tolerance, "residual \(channels) \(backend) \(c.testDescription)", shape: shape)
        let withPReLU = weights.withUnsafeBufferPointer { f in
          withEpilogue(bias: bias, slopes: slopes) { ConvolutionPlan(g, filter: f, epilogue: $0, backend: backend) }
        }
        withPReLU.run(input: input, output: &output)
        expectClose(output, preluOutput, tolerance, "prelu \(backend) \(c.testDescription)", shape: shape)
        // Both: the landmark model's ADD → PRELU block ends.
        withPReLU.run(input: input, output: &output, residual: residual, residualChannels: channels.residual)
        expectClose(output, addedThenPReLU, tolerance, "residual+prelu \(backend) \(c.testDescription)", shape: shape)
      }
    }
  }
}

/// `ConvolutionPlan.step` with a pool against the plan's serial run, bit for bit: pointwise
/// layers whose pixel count leaves a partial tile and parts of unequal size, strided and
/// padded windows, a residual of fewer channels with a PReLU.
@Suite struct ThreadedConvolutionTests {
  @Test(arguments: [
    ConvolutionCase(
      index: 50_001, channels: 16, height: 37, width: 23, outputChannels: 24, filterHeight: 1, filterWidth: 1,
      stride: 1, padding: .valid, relu: true),
    ConvolutionCase(
      index: 50_002, channels: 8, height: 33, width: 31, outputChannels: 40, filterHeight: 3, filterWidth: 3, stride: 2,
      padding: .same, relu: false),
    ConvolutionCase(
      index: 50_003, channels: 3, height: 65, width: 29, outputChannels: 16, filterHeight: 3, filterWidth: 3, stride: 1,
      padding: .same, relu: true),
    ConvolutionCase(
      index: 50_004, channels: 12, height: 9, width: 70, outputChannels: 13, filterHeight: 2, filterWidth: 2, stride: 2,
      padding: .valid, relu: false, batch: 3),
    // Large enough that every thread fills part of the padded copy first.
    ConvolutionCase(
      index: 50_005, channels: 3, height: 130, width: 97, outputChannels: 16, filterHeight: 3, filterWidth: 3,
      stride: 2, padding: .same, relu: true),
    ConvolutionCase(
      index: 50_006, channels: 4, height: 70, width: 61, outputChannels: 8, filterHeight: 5, filterWidth: 5, stride: 1,
      padding: .same, relu: false, batch: 2),
  ])
  func threadedStepMatchesSerialRun(_ c: ConvolutionCase) {
    let g = c.geometry
    let (input, weights, bias) = c.data()
    var random = RandomSource(seed: UInt64(c.index) + 7)
    let residualChannels = max(1, g.output.channels - 5)
    let residual = random.floats(g.output.count / g.output.channels * residualChannels)
    let slopes = random.floats(g.output.channels, in: 0...1)
    let pool = ThreadPool(threadCount: 3)
    for prelu in [false, true] {
      for withResidual in [false, true] {
        let plan = weights.withUnsafeBufferPointer { f in
          withEpilogue(bias: bias, clamp: c.clamp, slopes: prelu ? slopes : nil) {
            ConvolutionPlan(g, filter: f, epilogue: $0)
          }
        }
        var serial = [Float](repeating: .nan, count: g.output.count)
        var threaded = serial
        input.withUnsafeBufferPointer { x in
          residual.withUnsafeBufferPointer { r in
            let extra = withResidual ? r.baseAddress : nil
            let channels = withResidual ? residualChannels : nil
            serial.withUnsafeMutableBufferPointer {
              plan.run(input: x.baseAddress!, output: $0.baseAddress!, residual: extra, residualChannels: channels)
            }
            threaded.withUnsafeMutableBufferPointer { out in
              let step = plan.step(
                input: x.baseAddress!, output: out.baseAddress!, residual: extra, residualChannels: channels, pool: pool
              )
              step()
              step()
            }
          }
        }
        expectClose(
          threaded, serial, .exact, "\(c.testDescription) prelu \(prelu) residual \(withResidual)",
          shape: [g.output.batch, g.output.height, g.output.width, g.output.channels])
      }
    }
  }
}

/// Compares both `ConvolutionPlan` backends with the reference for one case.
///
/// `PackedGEMM` sums each output in k order like the reference, so it must match to the bit
/// where it multiplies then adds (`Tolerance.sameOrder`: the baseline level) and within
/// rounding where it fuses them; BLAS reorders the sums and gets the √k-scaled tolerance.
func check(_ c: ConvolutionCase, sourceLocation: SourceLocation = #_sourceLocation) {
  let g = c.geometry
  let (input, filter, bias) = c.data()
  let reference = Kernel.convolution(g, input: input, filter: filter, bias: bias, clamp: c.clamp, nil)
  for backend in [ConvolutionPlan.Backend.packed, .blas] {
    let optimized = Kernel.convolution(g, input: input, filter: filter, bias: bias, clamp: c.clamp, backend)
    let tolerance: Tolerance = backend == .packed ? .sameOrder(g.patchSize) : .reordered(g.patchSize)
    expectClose(
      optimized, reference, tolerance, "conv \(backend) \(c.testDescription) [\(g)]",
      shape: [g.output.batch, g.output.height, g.output.width, g.output.channels],
      sourceLocation: sourceLocation)
  }
}
