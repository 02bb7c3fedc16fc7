import Testing
import VisageKernels
import VisageTestSupport

/// One frame of the YUV equivalence grid; its index seeds its samples.
struct YUVCase: Sendable, CustomTestStringConvertible {
  enum Layout: String, Sendable, CaseIterable { case nv12, nv21, i420 }

  var index: Int
  var width: Int
  var height: Int
  var layout: Layout
  var matrix: YUVToRGB.Matrix
  /// Bytes each plane's rows have beyond their samples (the V plane of I420 three more, so
  /// that its stride differs from U's).
  var padding: Int

  var testDescription: String { "#\(index) \(width)x\(height) \(layout.rawValue) \(matrix) padding \(padding)" }

  /// Widths and heights at, below and above the vector widths (8 pixels, 8 chroma samples
  /// = 16 pixels), odd sizes whose last column or row has half a chroma block, and one
  /// frame near 1080p with a camera-like stride.
  static let grid: [YUVCase] = {
    var cases: [YUVCase] = []
    let sizes = [
      (1, 1), (2, 1), (1, 2), (2, 2), (3, 3), (7, 5), (8, 2), (9, 3), (15, 4), (16, 16), (17, 17), (18, 1),
      (31, 2), (33, 9), (40, 7), (65, 3),
    ]
    for (width, height) in sizes {
      for layout in Layout.allCases {
        for matrix in YUVToRGB.Matrix.allCases {
          for padding in [0, 5] {
            cases.append(
              YUVCase(
                index: cases.count, width: width, height: height, layout: layout, matrix: matrix, padding: padding))
          }
        }
      }
    }
    for layout in Layout.allCases {
      for matrix in YUVToRGB.Matrix.allCases {
        cases.append(
          YUVCase(index: cases.count, width: 1922, height: 1081, layout: layout, matrix: matrix, padding: 62))
      }
    }
    return cases
  }()
}

/// A frame's planes as arrays, with the strides they were made with.
struct YUVFrame {
  var width: Int
  var height: Int
  var layout: YUVCase.Layout
  var luma: [UInt8]
  var lumaStride: Int
  /// One interleaved plane (NV12, NV21) or U then V (I420).
  var chroma: [[UInt8]]
  var chromaStrides: [Int]

  /// Random samples (padding bytes too, which must not matter) for a case.
  init(_ c: YUVCase) {
    var random = RandomSource(seed: UInt64(c.index))
    let (chromaWidth, chromaHeight) = ((c.width + 1) / 2, (c.height + 1) / 2)
    func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
    self.init(width: c.width, height: c.height, layout: c.layout, luma: [], lumaStride: c.width + c.padding)
    luma = bytes(lumaStride * c.height)
    chromaStrides =
      c.layout == .i420 ? [chromaWidth + c.padding, chromaWidth + c.padding + 3] : [2 * chromaWidth + c.padding]
    chroma = chromaStrides.map { bytes($0 * chromaHeight) }
  }

  init(width: Int, height: Int, layout: YUVCase.Layout, luma: [UInt8], lumaStride: Int) {
    (self.width, self.height, self.layout, self.luma, self.lumaStride) = (width, height, layout, luma, lumaStride)
    (chroma, chromaStrides) = ([], [])
  }

  /// The frame through one of the two kernels, as RGB bytes. The kernels' vector stores may
  /// write past their pixels onto pixels written later, never past the image: sixteen guard
  /// bytes after it must come back untouched.
  func rgb(_ matrix: YUVToRGB.Matrix, _ path: KernelPath, sourceLocation: SourceLocation = #_sourceLocation)
    -> [UInt8]
  {
    let count = width * height * 3
    var output = [UInt8](repeating: 0xA5, count: count + 16)
    luma.withUnsafeBufferPointer { y in
      chroma[0].withUnsafeBufferPointer { c0 in
        (chroma.count > 1 ? chroma[1] : chroma[0]).withUnsafeBufferPointer { c1 in
          let (base, second) = (c0.baseAddress!, c1.baseAddress!)
          let planes =
            switch layout {
            case .nv12:
              YUVToRGB.Planes(
                y: y.baseAddress!, yBytesPerRow: lumaStride, u: base, uBytesPerRow: chromaStrides[0], v: base + 1,
                vBytesPerRow: chromaStrides[0], chromaStep: 2)
            case .nv21:
              YUVToRGB.Planes(
                y: y.baseAddress!, yBytesPerRow: lumaStride, u: base + 1, uBytesPerRow: chromaStrides[0], v: base,
                vBytesPerRow: chromaStrides[0], chromaStep: 2)
            case .i420:
              YUVToRGB.Planes(
                y: y.baseAddress!, yBytesPerRow: lumaStride, u: base, uBytesPerRow: chromaStrides[0], v: second,
                vBytesPerRow: chromaStrides[1], chromaStep: 1)
            }
          output.withUnsafeMutableBufferPointer { out in
            switch path {
            case .reference: YUVToRGB.reference(planes, width: width, height: height, matrix, output: out.baseAddress!)
            case .optimized: YUVToRGB.optimized(planes, width: width, height: height, matrix, output: out.baseAddress!)
            }
          }
        }
      }
    }
    #expect(output[count...].allSatisfy { $0 == 0xA5 }, "\(path) wrote past the image", sourceLocation: sourceLocation)
    return Array(output[..<count])
  }
}

@Suite struct YUVToRGBTests {
  /// Integer arithmetic throughout, so the two kernels must agree exactly.
  @Test(arguments: YUVCase.grid)
  func optimizedMatchesReference(_ c: YUVCase) {
    let frame = YUVFrame(c)
    expectSameRGB(frame.rgb(c.matrix, .optimized), frame.rgb(c.matrix, .reference), width: c.width, c.testDescription)
  }

  /// Every (U, V) pair once, each block's four Y values spread over 0...255, so that every
  /// saturation of every channel is reached in both matrices.
  @Test(arguments: YUVToRGB.Matrix.allCases, YUVCase.Layout.allCases)
  func everyChromaPair(_ matrix: YUVToRGB.Matrix, _ layout: YUVCase.Layout) {
    let (width, height) = (512, 512)
    var frame = YUVFrame(
      width: width, height: height, layout: layout,
      luma: (0..<width * height).map { UInt8(truncatingIfNeeded: ($0 % width) * 37 + ($0 / width) * 101) },
      lumaStride: width)
    let u = (0..<256 * 256).map { UInt8($0 % 256) }
    let v = (0..<256 * 256).map { UInt8($0 / 256) }
    if layout == .i420 {
      (frame.chroma, frame.chromaStrides) = ([u, v], [256, 256])
    } else {
      let pairs = layout == .nv12 ? zip(u, v) : zip(v, u)
      (frame.chroma, frame.chromaStrides) = ([pairs.flatMap { [$0.0, $0.1] }], [512])
    }
    expectSameRGB(frame.rgb(matrix, .optimized), frame.rgb(matrix, .reference), width: width, "\(matrix) \(layout)")
  }

  /// Hand-worked values of the reference, video range: ((Y − 16)·1220542 + 2^19 + the
  /// chroma products) >> 20 per channel, saturated.
  @Test func referenceGoldens() {
    // Black, white, and Y below 16 and above 235 (clamped to black, saturated to white);
    // V = 240 with Y = 235: red saturates, green (219·1220542 + 2^19 − 112·852492) >> 20
    // = 164, blue 255; U = 16 with Y = 126: red (110·1220542 + 2^19) >> 20 = 128, green
    // (110·1220542 + 2^19 + 112·409993) >> 20 = 172, blue below 0.
    let y: [UInt8] = [16, 235, 0, 255, 235, 235, 126, 126]
    let u: [UInt8] = [128, 128, 128, 16]
    let v: [UInt8] = [128, 128, 240, 128]
    var frame = YUVFrame(width: 8, height: 1, layout: .i420, luma: y, lumaStride: 8)
    (frame.chroma, frame.chromaStrides) = ([u, v], [4, 4])
    let expected: [UInt8] = [
      0, 0, 0, 255, 255, 255, 0, 0, 0, 255, 255, 255, 255, 164, 255, 255, 164, 255, 128, 172, 0, 128, 172, 0,
    ]
    #expect(frame.rgb(.videoRange, .reference) == expected)
  }
}

/// Expects two RGB images to be equal, naming the first differing pixel and channel.
func expectSameRGB(
  _ actual: [UInt8], _ expected: [UInt8], width: Int, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(actual.count == expected.count, "\(what): sizes differ", sourceLocation: sourceLocation)
  guard actual.count == expected.count, let i = actual.indices.first(where: { actual[$0] != expected[$0] }) else {
    return
  }
  let (pixel, channel) = i.quotientAndRemainder(dividingBy: 3)
  let place = "x \(pixel % width), y \(pixel / width), channel \(channel)"
  Issue.record("\(what): first difference at \(place): \(actual[i]) vs \(expected[i])", sourceLocation: sourceLocation)
}
