// The AArch64 driver's Swift half, compiled in Embedded Swift together with
// Sources/VisageMicroKernels (one module, so it calls their entry points directly): it turns
// one case the C half (driver.c) read from the case file into the kernel's C structs and runs
// the kernel. The layout of each kind's integers, doubles and buffers is the host's, in
// Tests/VisageTestSupport/AArch64Driver.swift; `.ci/arm64` builds and runs this.
import CVisageISA

/// Runs case `kind` and returns 0, or 1 for a kind this driver does not know.
@_cdecl("visage_aarch64_run")
public func visageAArch64Run(
  _ kind: Int, _ ints: UnsafePointer<Int>, _ doubles: UnsafePointer<Double>,
  _ buffers: UnsafePointer<UnsafeMutableRawPointer?>
) -> Int32 {
  func floats(_ index: Int) -> UnsafeMutablePointer<Float>? { buffers[index]?.assumingMemoryBound(to: Float.self) }
  let (lower, upper) = (Float(doubles[0]), Float(doubles[1]))
  switch kind {
  case 1:  // packedGEMM: buffers panels, bias, slopes?, a, c, residual?
    let weights = VisagePackedWeights(
      panels: floats(0)!, n: ints[0], k: ints[1], tileRows: ints[2], bias: floats(1)!,
      slopes: floats(2).map { UnsafePointer($0) }, lower: lower, upper: upper)
    let operands = VisageGEMMOperands(
      m: ints[3], a: floats(3)!, lda: ints[4], segmentOffsets: ints + 8, segmentCount: ints[5], c: floats(4)!,
      ldc: ints[6], residual: floats(5).map { UnsafePointer($0) }, residualChannels: ints[7])
    packedGEMM(weights, operands)
  case 2:  // leftPackedGEMM: buffers panels, bias, x, c, residual?
    let weights = VisageLeftPackedWeights(
      panels: floats(0)!, m: ints[0], k: ints[1], bias: floats(1)!, tileRows: ints[2], lower: lower, upper: upper)
    leftPackedGEMM(
      weights, n: ints[3], x: floats(2)!, ldx: ints[4], c: floats(3)!, ldc: ints[5],
      residual: floats(4).map { UnsafePointer($0) }, panels: ints[6]..<ints[7])
  case 3:  // depthwise3x3Row over rows: buffers filter, bias, slopes?, input, zero row, output
    let layer = VisageDepthwise3x3(
      channels: ints[0], strideWidth: ints[1], outputWidth: ints[2], spanWidth: ints[3], leftEdge: Int32(ints[4]),
      rightEdge: Int32(ints[5]), firstInside: ints[6], endInside: ints[7], padLeft: ints[8], filter: floats(0)!,
      bias: floats(1)!, slopes: floats(2).map { UnsafePointer($0) }, lower: lower, upper: upper)
    // Each row: three input offsets (−1 for the zero row) and an output offset, in floats.
    func row(_ offset: Int) -> UnsafePointer<Float> {
      UnsafePointer(offset < 0 ? floats(4)! : floats(3)! + offset)
    }
    for r in 0..<ints[9] {
      let at = ints + 10 + 4 * r
      depthwise3x3Row(layer, row(at[0]), row(at[1]), row(at[2]), floats(5)! + at[3])
    }
  case 4:  // maxPool2x2Row calls: buffers input, output
    for call in 0..<ints[0] {
      let at = ints + 1 + 6 * call
      maxPool2x2Row(floats(0)! + at[0], at[1], at[2], floats(1)! + at[3], at[4], at[5], lower, upper)
    }
  case 5:  // fixedPointWarp: buffers pixels, output; doubles lower, upper (unused), map, scale, offset
    let d = doubles + 2
    let warp = VisageFixedPointWarp(
      pixels: UnsafePointer(buffers[0]!.assumingMemoryBound(to: UInt8.self)), width: ints[0], height: ints[1],
      outputWidth: ints[2], outputHeight: ints[3], blockWidth: ints[4],
      map: (d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8]), replicateBorder: Int32(ints[5]),
      scale: Float(d[9]), offset: Float(d[10]))
    fixedPointWarp(warp, floats(1)!)
  default: return 1
  }
  return 0
}
