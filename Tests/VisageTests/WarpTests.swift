import Testing
import VisageKernels
import VisageTestSupport

@testable import Visage

/// The optimized `FixedPointWarp` against its per-pixel reference twin, bit for bit:
/// tiny and odd-sized images, output widths that leave partial groups of eight, rects that
/// turn, overhang every edge, lie wholly outside, or are so large that the coordinates clamp.
@Suite struct WarpTests {
  static let images: [(width: Int, height: Int)] = [(1, 1), (2, 1), (1, 3), (2, 2), (17, 11), (64, 48)]
  static let outputs: [(width: Int, height: Int)] = [(1, 1), (7, 5), (13, 9), (33, 17), (64, 64), (70, 3)]

  /// The whole image, a rect wholly outside, one so large its coordinates clamp, and 12
  /// random ones that turn and overhang.
  static func rects(for size: (width: Int, height: Int), _ random: inout RandomSource) -> [RotatedRect] {
    var rects: [RotatedRect] = [
      RotatedRect(
        NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1), imageWidth: size.width,
        imageHeight: size.height),
      RotatedRect(centerX: -40, centerY: -40, width: 10, height: 10, rotation: 0.3),  // wholly outside
      RotatedRect(centerX: 0, centerY: 0, width: 1e30, height: 1e30, rotation: 1),  // clamped coordinates
    ]
    for _ in 0..<12 {
      let r = random.floats(5, in: -1...2)
      rects.append(
        RotatedRect(
          centerX: r[0] * Float(size.width), centerY: r[1] * Float(size.height),
          width: (abs(r[2]) + 0.05) * Float(size.width) * 1.5, height: (abs(r[3]) + 0.05) * Float(size.height) * 1.5,
          rotation: r[4] * 3.2))
    }
    return rects
  }

  @Test(arguments: [BorderMode.zero, .replicate])
  func optimizedMatchesReference(_ border: BorderMode) throws {
    var random = RandomSource(seed: border == .zero ? 1 : 2)
    let levels = LevelMap(range: -1...1)
    for (imageIndex, size) in Self.images.enumerated() {
      let pixels = (0..<(size.width * size.height * 3)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      let image = try MPImage(width: size.width, height: size.height, rgb: pixels)
      for (rectIndex, rect) in Self.rects(for: size, &random).enumerated() {
        for output in Self.outputs {
          let count = output.width * output.height * 3
          var fast = [Float](repeating: .nan, count: count)
          var reference = [Float](repeating: .nan, count: count)
          let map = PerspectiveMap(roi: rect, outputWidth: output.width, outputHeight: output.height)
          image.withSource { source in
            fast.withUnsafeMutableBufferPointer {
              FixedPointWarp.optimized(
                source, map: map, outputWidth: output.width, outputHeight: output.height, border: border,
                levels: levels, into: $0.baseAddress!)
            }
            reference.withUnsafeMutableBufferPointer {
              FixedPointWarp.reference(
                source, map: map, outputWidth: output.width, outputHeight: output.height, border: border,
                levels: levels, into: $0.baseAddress!)
            }
          }
          let first = fast.indices.first { fast[$0].bitPattern != reference[$0].bitPattern }
          #expect(
            first == nil,
            "image #\(imageIndex) \(size) rect #\(rectIndex) \(rect) output \(output): first difference at \(first ?? -1)"
          )
        }
      }
    }
  }
}
