import Foundation
import Testing
import VisageKernels
import VisageTestSupport

/// Hand-worked answers for the reference kernels (TFLM `SimpleTest` style): every expected
/// number below can be checked with pencil and paper, which is what makes the reference
/// kernels the specification the optimized ones are measured against.
@Suite struct ReferenceGoldenTests {
  // MARK: Window and geometry

  struct WindowCase: Sendable, CustomTestStringConvertible {
    var input, filter, stride, dilation: Int
    var padding: Padding
    var outputSize, padBefore: Int
    var testDescription: String {
      "in \(input) k\(filter) s\(stride) d\(dilation) \(padding) -> \(outputSize) pad \(padBefore)"
    }
  }

  static let windows: [WindowCase] = [
    // SAME: ceil(in / stride) outputs; total padding split with the smaller half first.
    WindowCase(input: 5, filter: 3, stride: 1, dilation: 1, padding: .same, outputSize: 5, padBefore: 1),
    WindowCase(input: 5, filter: 3, stride: 2, dilation: 1, padding: .same, outputSize: 3, padBefore: 1),
    WindowCase(input: 4, filter: 3, stride: 2, dilation: 1, padding: .same, outputSize: 2, padBefore: 0),
    WindowCase(input: 4, filter: 2, stride: 2, dilation: 1, padding: .same, outputSize: 2, padBefore: 0),
    WindowCase(input: 7, filter: 5, stride: 1, dilation: 2, padding: .same, outputSize: 7, padBefore: 4),
    WindowCase(input: 1, filter: 5, stride: 1, dilation: 1, padding: .same, outputSize: 1, padBefore: 2),
    WindowCase(input: 128, filter: 5, stride: 2, dilation: 1, padding: .same, outputSize: 64, padBefore: 1),
    // VALID: only windows wholly inside; never negative.
    WindowCase(input: 5, filter: 3, stride: 1, dilation: 1, padding: .valid, outputSize: 3, padBefore: 0),
    WindowCase(input: 5, filter: 3, stride: 2, dilation: 1, padding: .valid, outputSize: 2, padBefore: 0),
    WindowCase(input: 6, filter: 3, stride: 2, dilation: 1, padding: .valid, outputSize: 2, padBefore: 0),
    WindowCase(input: 7, filter: 3, stride: 1, dilation: 3, padding: .valid, outputSize: 1, padBefore: 0),
    WindowCase(input: 2, filter: 3, stride: 1, dilation: 1, padding: .valid, outputSize: 0, padBefore: 0),
    WindowCase(input: 1, filter: 5, stride: 2, dilation: 1, padding: .valid, outputSize: 0, padBefore: 0),
  ]

  @Test(arguments: windows)
  func window(_ c: WindowCase) {
    let w = Window(inputSize: c.input, filterSize: c.filter, stride: c.stride, dilation: c.dilation, padding: c.padding)
    #expect(w.outputSize == c.outputSize)
    if c.outputSize > 0 { #expect(w.padBefore == c.padBefore) }
  }

  @Test func convolutionGeometryDerivesOutputAndPadding() {
    let g = ConvolutionGeometry(
      input: nhwc(1, 5, 4, 3), outputChannels: 8, filterHeight: 3, filterWidth: 3,
      strideHeight: 2, strideWidth: 2, padding: .same)
    #expect(g.output == nhwc(1, 3, 2, 8))
    #expect(g.padTop == 1)
    #expect(g.padLeft == 0)
    #expect(g.patchSize == 27)
    #expect(g.multiplyAdds == 3 * 2 * 8 * 27)
  }

  // MARK: Convolution

  /// 3×3 image 1…9, all-ones 3×3 filter, SAME: each output is its neighbourhood's sum.
  @Test func convolution3x3SameSumsNeighbourhoods() {
    let g = ConvolutionGeometry(
      input: nhwc(1, 3, 3, 1), outputChannels: 1, filterHeight: 3, filterWidth: 3, padding: .same)
    let out = Kernel.convolution(
      g, input: [1, 2, 3, 4, 5, 6, 7, 8, 9], filter: Array(repeating: 1, count: 9), bias: [0.5],
      clamp: .none, nil)
    #expect(out == [12.5, 21.5, 16.5, 27.5, 45.5, 33.5, 24.5, 39.5, 28.5])
  }

  /// A filter whose only tap is its top-left corner shifts the image down and right.
  @Test func convolutionFilterOrientation() {
    let g = ConvolutionGeometry(
      input: nhwc(1, 3, 3, 1), outputChannels: 1, filterHeight: 3, filterWidth: 3, padding: .same)
    let out = Kernel.convolution(
      g, input: [1, 2, 3, 4, 5, 6, 7, 8, 9], filter: [1, 0, 0, 0, 0, 0, 0, 0, 0], bias: nil,
      clamp: .none, nil)
    #expect(out == [0, 0, 0, 0, 1, 2, 0, 4, 5])
  }

  /// OHWI: output channel o sums filter[o][i] · x[i]; RELU clamps the negative one.
  @Test func convolutionPointwiseChannelsAndClamp() {
    let g = ConvolutionGeometry(
      input: nhwc(1, 1, 2, 2), outputChannels: 2, filterHeight: 1, filterWidth: 1, padding: .valid)
    // Pixels (1, 2) and (3, -4); filter rows o0 = (1, 1), o1 = (2, -1); bias (0, 1).
    let out = Kernel.convolution(
      g, input: [1, 2, 3, -4], filter: [1, 1, 2, -1], bias: [0, 1], clamp: .relu, nil)
    #expect(out == [3, 1, 0, 11])
  }

  // MARK: Depthwise convolution

  /// 4×4×2 at stride 2 SAME (padding only after): channel 0 sums y·4 + x over each
  /// window, channel 1 counts the window's in-image taps (+0.5 bias).
  @Test func depthwiseStride2Same() {
    let g = ConvolutionGeometry(
      input: nhwc(1, 4, 4, 2), outputChannels: 2, filterHeight: 3, filterWidth: 3,
      strideHeight: 2, strideWidth: 2, padding: .same)
    #expect(g.padTop == 0 && g.padLeft == 0 && g.output == nhwc(1, 2, 2, 2))
    var input: [Float] = []
    for i in 0..<16 { input += [Float(i), 1] }
    let out = Kernel.depthwise(
      g, input: input, filter: Array(repeating: 1, count: 18), bias: [0, 0.5], clamp: .none, .reference)
    #expect(out == [45, 9.5, 39, 6.5, 66, 6.5, 50, 4.5])
  }

  /// Depth multiplier 2: output channel c·2 + m reads input channel c with filter column c·2 + m.
  @Test func depthwiseMultiplierTwo() {
    let g = ConvolutionGeometry(
      input: nhwc(1, 1, 1, 2), outputChannels: 4, filterHeight: 1, filterWidth: 1, padding: .valid)
    let out = Kernel.depthwise(
      g, input: [3, 5], filter: [1, 2, 10, -1], bias: [0, 0, 0, 0.5], clamp: .none, .reference)
    #expect(out == [3, 6, 50, -4.5])
  }

  // MARK: Pooling

  /// All-negative input: SAME padding must never contribute a zero to a maximum.
  @Test func maxPoolPaddingNeverWins() {
    let g = PoolingGeometry(
      input: nhwc(1, 3, 3, 1), filterHeight: 2, filterWidth: 2, strideHeight: 2, strideWidth: 2,
      padding: .same)
    let out = Kernel.maxPool(g, input: [-1, -2, -3, -4, -5, -6, -7, -8, -9], clamp: .none, .reference)
    #expect(out == [-1, -3, -7, -9])
  }

  /// 3×3 windows at stride 1 with one row and column of padding on each side.
  @Test func maxPoolSameStride1() {
    let g = PoolingGeometry(
      input: nhwc(1, 3, 3, 1), filterHeight: 3, filterWidth: 3, strideHeight: 1, strideWidth: 1,
      padding: .same)
    let out = Kernel.maxPool(g, input: [5, 1, 0, 2, 3, 4, 0, 8, 6], clamp: .relu6, .reference)
    // Raw maxima 5 5 4 / 8 8 8 / 8 8 8, then clamped to 6.
    #expect(out == [5, 5, 4, 6, 6, 6, 6, 6, 6])
  }

  // MARK: Resampling

  /// Half-pixel centres from 2×2 to 4×4: each axis samples at −0.25, 0.25, 0.75, 1.25,
  /// clamped to the edge, so weights along it are 0, ¼, ¾, 1 of the second row or column.
  @Test func bilinearHalfPixel2x2To4x4() {
    let out = Kernel.resize(
      [0, 4, 8, 12], nhwc(1, 2, 2, 1), to: nhwc(1, 4, 4, 1),
      options: .init(alignCorners: false, halfPixelCenters: true))
    #expect(out == [0, 1, 3, 4, 2, 3, 5, 6, 6, 7, 9, 10, 8, 9, 11, 12])
  }

  /// Align corners from 2 to 3 columns lands the middle sample exactly half-way.
  @Test func bilinearAlignCorners1x2To1x3() {
    let out = Kernel.resize(
      [2, 10], nhwc(1, 1, 2, 1), to: nhwc(1, 1, 3, 1), options: .init(alignCorners: true))
    #expect(out == [2, 6, 10])
  }

  /// Default mapping (x · in/out, no half pixel) from 2 to 4 columns.
  @Test func bilinearDefault1x2To1x4() {
    let out = Kernel.resize([0, 8], nhwc(1, 1, 2, 1), to: nhwc(1, 1, 4, 1), options: .init())
    #expect(out == [0, 4, 8, 8])
  }

  // MARK: Half

  struct HalfCase: Sendable, CustomTestStringConvertible {
    var bits: UInt16
    var value: Float
    var testDescription: String { "0x" + String(bits, radix: 16) + " -> \(value)" }
  }

  static let halves: [HalfCase] = [
    HalfCase(bits: 0x0000, value: 0),
    HalfCase(bits: 0x3C00, value: 1),
    HalfCase(bits: 0xC000, value: -2),
    HalfCase(bits: 0x3555, value: 0x1.554p-2),  // nearest half to 1/3
    HalfCase(bits: 0x7BFF, value: 65504),  // largest normal
    HalfCase(bits: 0x0400, value: 0x1p-14),  // smallest normal
    HalfCase(bits: 0x0001, value: 0x1p-24),  // smallest subnormal
    HalfCase(bits: 0x03FF, value: 1023 * 0x1p-24),  // largest subnormal
    HalfCase(bits: 0x8001, value: -0x1p-24),
    HalfCase(bits: 0x0200, value: 0x1p-15),
    HalfCase(bits: 0x7C00, value: .infinity),
    HalfCase(bits: 0xFC00, value: -.infinity),
  ]

  @Test(arguments: halves)
  func halfToFloat(_ c: HalfCase) {
    #expect(Half.float(fromBits: c.bits).bitPattern == c.value.bitPattern)
  }

  @Test func halfSignedZeroAndNaN() {
    #expect(Half.float(fromBits: 0x8000).bitPattern == (-0.0 as Float).bitPattern)
    for bits: UInt16 in [0x7E00, 0x7C01, 0xFE00, 0x7FFF] {
      #expect(Half.float(fromBits: bits).isNaN, "0x\(String(bits, radix: 16))")
    }
    // The quiet bit and payload survive the widening.
    #expect(Half.float(fromBits: 0x7E00).bitPattern == 0x7FC0_0000)
  }

  /// Every finite half widens to the value its bits denote: m · 2^(e−25) for the
  /// integer significand m (implicit bit included) — checked exhaustively.
  @Test func halfExhaustiveFinite() {
    var mismatches: [UInt16] = []
    for bits in UInt16(0)...UInt16.max where (bits >> 10) & 0x1F != 0x1F {
      let exponent = Int((bits >> 10) & 0x1F)
      let fraction = Int(bits & 0x3FF)
      let magnitude =
        exponent == 0
        ? Float(fraction) * 0x1p-24
        : Float(fraction + 1024) * Float(sign: .plus, exponent: exponent - 25, significand: 1)
      let expected = bits & 0x8000 != 0 ? -magnitude : magnitude
      if Half.float(fromBits: bits).bitPattern != expected.bitPattern { mismatches.append(bits) }
    }
    #expect(mismatches.isEmpty, "first: \(mismatches.prefix(4).map { String($0, radix: 16) })")
  }

  /// The eight-at-a-time widening gives `float(fromBits:)`'s bits for every one of the
  /// 65536 patterns (NaN payloads included), from an odd offset and with a scalar tail.
  @Test func halfBulkConversionMatchesScalar() {
    var bytes: [UInt8] = [0x55]  // one byte of padding: the halves start unaligned
    for bits in UInt16(0)...UInt16.max { bytes += [UInt8(bits & 0xFF), UInt8(bits >> 8)] }
    bytes += [0x00, 0x3C, 0x01, 0x80, 0xFF, 0x7C]  // three more: a tail of 65539 % 8 = 3
    let count = (bytes.count - 1) / 2
    var converted = [Float](repeating: .nan, count: count)
    bytes.withUnsafeBytes { raw in
      converted.withUnsafeMutableBufferPointer {
        Half.floats(fromLittleEndian: raw.baseAddress! + 1, count: count, into: $0.baseAddress!)
      }
    }
    var mismatches: [Int] = []
    for i in 0..<count {
      let bits = UInt16(bytes[1 + 2 * i]) | UInt16(bytes[2 + 2 * i]) << 8
      if converted[i].bitPattern != Half.float(fromBits: bits).bitPattern { mismatches.append(i) }
    }
    #expect(mismatches.isEmpty, "first: \(mismatches.prefix(4))")
  }

  // MARK: Elementwise, reductions, GEMM, layout

  @Test func unaryFunctionValues() {
    let x: [Float] = [-7, -0.5, 0, 2, 9]
    #expect(Kernel.unary(.relu, x, .reference) == [0, 0, 0, 2, 9])
    #expect(Kernel.unary(.relu6, x, .reference) == [0, 0, 0, 2, 6])
    #expect(Kernel.unary(.negate, x, .reference) == [7, 0.5, -0, -2, -9])
    #expect(Kernel.unary(.squareRoot, [0, 4, 2.25], .reference) == [0, 2, 1.5])
    #expect(Kernel.unary(.reciprocalSquareRoot, [4, 0.25], .reference) == [0.5, 2])
    #expect(Kernel.unary(.logistic, [0], .reference) == [0.5])
    #expect(Kernel.unary(.tanh, [0], .reference) == [0])
    // TFLite's logistic saturates to exactly 1 above 16.619… and to e^x below -9.
    #expect(Kernel.unary(.logistic, [17, 100], .reference) == [1, 1])
    #expect(Kernel.unary(.logistic, [-20], .reference) == [exp(Float(-20))])
  }

  @Test func binaryBroadcastRowAgainstColumn() throws {
    // [2, 1] against [3]: a 2×3 outer operation.
    let result = try #require(
      Kernel.binary(.subtract, lhs: [10, 20], [2, 1], rhs: [1, 2, 3], [3], clamp: .none, .reference))
    #expect(result.shape == [2, 3])
    #expect(result.values == [9, 8, 7, 19, 18, 17])
    let prelu = try #require(
      Kernel.binary(.prelu, lhs: [-2, 3, -4, 0], [2, 2], rhs: [0.5, 0.25], [2], clamp: .none, .reference))
    #expect(prelu.values == [-1, 3, -2, 0])
    let squared = try #require(
      Kernel.binary(.squaredDifference, lhs: [1, 5], [2], rhs: [4], [], clamp: .reluN1To1, .reference))
    #expect(squared.values == [1, 1])
  }

  @Test func broadcastStrides() throws {
    let b = try #require(Broadcast(lhs: [97, 1], rhs: [97, 64]))
    #expect(b.outputShape == [97, 64])
    #expect(b.lhsStrides == [1, 0])
    #expect(b.rhsStrides == [64, 1])
    let c = try #require(Broadcast(lhs: [64], rhs: [1, 1, 97, 64]))
    #expect(c.outputShape == [1, 1, 97, 64])
    // Strides along size-1 output dimensions are never used; only the repeated 97 matters.
    #expect(c.lhsStrides[2...] == [0, 1])
    #expect(Broadcast(lhs: [3, 4], rhs: [5, 4]) == nil)
    #expect(Broadcast(lhs: [], rhs: [])?.outputShape == [])
  }

  @Test func reductionsOverAxes() {
    // [2, 3] = [[1, 2, 3], [4, 5, 6]].
    let x: [Float] = [1, 2, 3, 4, 5, 6]
    #expect(Kernel.reduce(.sum, x, shape: [2, 3], axes: [0], .reference) == [5, 7, 9])
    #expect(Kernel.reduce(.sum, x, shape: [2, 3], axes: [1], .reference) == [6, 15])
    #expect(Kernel.reduce(.mean, x, shape: [2, 3], axes: [1], .reference) == [2, 5])
    #expect(Kernel.reduce(.mean, x, shape: [2, 3], axes: [0, 1], .reference) == [3.5])
  }

  @Test func gemmReferenceBothLayouts() {
    // A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]]: A·B = [[19, 22], [43, 50]], A·Bᵀ = [[17, 23], [39, 53]].
    let a: [Float] = [1, 2, 3, 4]
    let b: [Float] = [5, 6, 7, 8]
    var c = [Float](repeating: 0, count: 4)
    GEMM.reference(m: 2, n: 2, k: 2, a: a, lda: 2, b: b, ldb: 2, transposeB: false, c: &c, ldc: 2)
    #expect(c == [19, 22, 43, 50])
    GEMM.reference(m: 2, n: 2, k: 2, a: a, lda: 2, b: b, ldb: 2, transposeB: true, c: &c, ldc: 2)
    #expect(c == [17, 23, 39, 53])
  }

  @Test func layoutTransposePadConcatenate() {
    // Transpose [2, 3] → [3, 2] by swapping the strides.
    var t = [Float](repeating: 0, count: 6)
    Layout.stridedCopy([1, 2, 3, 4, 5, 6], base: 0, inputStrides: [1, 3], outputShape: [3, 2], output: &t)
    #expect(t == [1, 4, 2, 5, 3, 6])
    var p = [Float](repeating: 0, count: 8)
    Layout.PaddedCopy(shape: [1, 2], paddings: [(0, 1), (1, 1)])([1, 2], value: -1, output: &p)
    #expect(p == [-1, 1, 2, -1, -1, -1, -1, -1])
    var joined = [Float](repeating: 0, count: 6)
    [Float]([1, 2]).withUnsafeBufferPointer { a in
      [Float]([3, 4, 5, 6]).withUnsafeBufferPointer { b in
        Layout.concatenate([(a.baseAddress!, [2, 1]), (b.baseAddress!, [2, 2])], axis: 1, output: &joined)
      }
    }
    #expect(joined == [1, 3, 4, 2, 5, 6])
  }
}
