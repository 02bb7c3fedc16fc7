import Testing
import VisageKernels
import VisageTestSupport

/// Bilinear resizing: where the reference kernel may read. The input sits between NaN
/// guard bands, so any read outside it turns an output into NaN.
@Suite struct ResamplingTests {
  struct Options: Sendable, CustomTestStringConvertible {
    var alignCorners: Bool
    var halfPixelCenters: Bool
    var value: Resampling.Options { .init(alignCorners: alignCorners, halfPixelCenters: halfPixelCenters) }
    var testDescription: String { "alignCorners \(alignCorners), halfPixelCenters \(halfPixelCenters)" }
  }

  /// The combinations TFLite accepts (its Prepare refuses both flags at once).
  static let accepted = [
    Options(alignCorners: false, halfPixelCenters: false), Options(alignCorners: true, halfPixelCenters: false),
    Options(alignCorners: false, halfPixelCenters: true),
  ]

  /// Every combination, the refused one included: the operator rejects align_corners with
  /// half_pixel_centers, but the kernel must stay in bounds even then (4 → 2 rows would ask
  /// for source row (1 + 0.5) · 3 − 0.5 = 4).
  static let all = accepted + [Options(alignCorners: true, halfPixelCenters: true)]

  /// Sizes (input, output) along both axes for which some output reads outside the input.
  static func outOfBoundsSizes(_ options: Options) -> [String] {
    var failures: [String] = []
    let channels = 2
    for inHeight in 1...6 {
      for outHeight in 1...9 {
        let inShape = nhwc(1, inHeight, 3, channels)
        let outShape = nhwc(1, outHeight, 5, channels)
        let guardBand = 64
        var buffer = [Float](repeating: .nan, count: inShape.count + 2 * guardBand)
        var random = RandomSource(seed: UInt64(inHeight * 16 + outHeight))
        let values = random.floats(inShape.count)
        buffer.replaceSubrange(guardBand..<(guardBand + inShape.count), with: values)
        var output = [Float](repeating: 0, count: outShape.count)
        buffer.withUnsafeBufferPointer { b in
          Resampling.reference(
            input: b.baseAddress! + guardBand, inShape, options: options.value, output: &output, outShape)
        }
        if output.contains(where: \.isNaN) { failures.append("\(inHeight) → \(outHeight)") }
      }
    }
    return failures
  }

  @Test(arguments: all)
  func readsStayInsideTheInput(_ options: Options) {
    let failures = Self.outOfBoundsSizes(options)
    #expect(failures.isEmpty, "reads outside the input for rows \(failures.prefix(8))")
  }

  /// Resizing to the same size is the identity, whatever the options TFLite accepts.
  @Test(arguments: accepted)
  func sameSizeIsIdentity(_ options: Options) {
    var random = RandomSource(seed: 12)
    let shape = nhwc(2, 3, 4, 5)
    let input = random.floats(shape.count)
    #expect(Kernel.resize(input, shape, to: shape, options: options.value) == input)
  }

  /// The optimized kernel against the reference, bit for bit: channel counts below, at and
  /// around 16 (its vector width), up- and down-sizing by whole and odd factors, a batch of
  /// two, under every option pair (the refused one too, for its bounds).
  @Test(arguments: all)
  func optimizedMatchesReference(_ options: Options) {
    var index = 0
    for channels in [1, 3, 8, 16, 17, 33, 48] {
      for (from, to) in [((6, 6), (12, 12)), ((24, 24), (48, 48)), ((5, 7), (3, 11)), ((1, 4), (3, 2))] {
        let inShape = nhwc(index % 3 == 0 ? 2 : 1, from.0, from.1, channels)
        let outShape = nhwc(inShape.batch, to.0, to.1, channels)
        var random = RandomSource(seed: UInt64(50_000 + index))
        let input = random.floats(inShape.count)
        let expected = Kernel.resize(input, inShape, to: outShape, options: options.value)
        var output = [Float](repeating: .nan, count: outShape.count)
        Resampling.optimized(input: input, inShape, options: options.value, output: &output, outShape)
        expectClose(
          output, expected, .exact, "resize \(inShape) → \(outShape) \(options.testDescription)",
          shape: [outShape.batch, outShape.height, outShape.width, outShape.channels])
        index += 1
      }
    }
  }
}
