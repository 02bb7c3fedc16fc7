import Testing
import VisageTestSupport

@testable import Visage
@testable import VisageKernels

/// The AArch64 build of the fixed-point warp micro-kernel, run under emulation (`.ci/arm64`;
/// `AArch64Driver`), against the per-pixel reference on the host, bit for bit (the warp
/// has no multiply-add to fuse), on the images, rects and output sizes `WarpTests` uses.
@Suite(.enabled(if: AArch64Driver.isConfigured, "no AArch64 driver: .ci/arm64 runs these"))
struct AArch64WarpTests {
  @Test func fixedPointWarp() throws {
    var cases: [AArch64Driver.Case] = []
    var expected: [(label: String, values: [Float])] = []
    let levels = LevelMap(range: -1...1)
    for border in [BorderMode.zero, .replicate] {
      var random = RandomSource(seed: border == .zero ? 1 : 2)
      for (imageIndex, size) in WarpTests.images.enumerated() {
        let pixels = (0..<(size.width * size.height * 3)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let image = try MPImage(width: size.width, height: size.height, rgb: pixels)
        for (rectIndex, rect) in WarpTests.rects(for: size, &random).enumerated() {
          for output in WarpTests.outputs {
            var reference = [Float](repeating: .nan, count: output.width * output.height * 3)
            let map = PerspectiveMap(roi: rect, outputWidth: output.width, outputHeight: output.height)
            // The kernel's parameters, all but the pixels' address (the driver has its own copy).
            let (ints, doubles) = image.withSource { source in
              reference.withUnsafeMutableBufferPointer {
                FixedPointWarp.reference(
                  source, map: map, outputWidth: output.width, outputHeight: output.height, border: border,
                  levels: levels, into: $0.baseAddress!)
              }
              let w = FixedPointWarp.parameters(
                source, map: map, outputWidth: output.width, outputHeight: output.height, border: border,
                levels: levels)
              let m = w.map
              return (
                [w.width, w.height, w.outputWidth, w.outputHeight, w.blockWidth, Int(w.replicateBorder)],
                [0, 0, m.0, m.1, m.2, m.3, m.4, m.5, m.6, m.7, m.8, Double(w.scale), Double(w.offset)]
              )
            }
            cases.append(
              AArch64Driver.Case(
                .fixedPointWarp, ints: ints, doubles: doubles,
                buffers: [pixels, AArch64Driver.bytes([Float](repeating: .nan, count: reference.count))], output: 1))
            expected.append(("\(border) image #\(imageIndex) \(size) rect #\(rectIndex) output \(output)", reference))
          }
        }
      }
    }
    #expect(cases.count > 1000)
    var failures = 0
    for (output, reference) in zip(try AArch64Driver.run(cases), expected) where failures < 10 {
      if !AArch64Driver.expectMatch(output, reference.values, .exact, "warp \(reference.label)") { failures += 1 }
    }
  }
}
