/// The 2×2 max-pool row kernel's entry point in this copy of the micro-kernels (BlazeFace's
/// downsampling; see VisageKernels' Pooling.swift): `count` neighbouring 2×2 windows inside
/// the input, `step` values apart, whose rows are `rowStride` apart, clamped to
/// `lower...upper`. Channels go 16 at a time, then a last block of 16 or 8 shifted back to
/// end at the last channel; each maximum starts from the reference's initial value.
public func maxPool2x2Row(
  _ input: UnsafePointer<Float>, _ rowStride: Int, _ step: Int,
  _ output: UnsafeMutablePointer<Float>, _ count: Int, _ channels: Int, _ lower: Float, _ upper: Float
) {
  var c = 0
  while c < channels {
    if channels - c >= 16 {
      max2x2Block(SIMD16<Float>.self, c, input, rowStride, step, output, count, channels, lower, upper)
      c += 16
    } else if channels >= 16 && channels - c > 8 {
      max2x2Block(SIMD16<Float>.self, channels - 16, input, rowStride, step, output, count, channels, lower, upper)
      c = channels
    } else {
      max2x2Block(
        SIMD8<Float>.self, min(c, channels - 8), input, rowStride, step, output, count, channels, lower, upper)
      c += 8
    }
  }
}

@inline(__always)
private func max2x2Block<V: FloatVector>(
  _: V.Type, _ c: Int, _ input: UnsafePointer<Float>, _ rowStride: Int, _ step: Int,
  _ output: UnsafeMutablePointer<Float>, _ count: Int, _ channels: Int, _ lower: Float, _ upper: Float
) {
  var x = input + c
  var out = output + c
  let start = V(repeating: -.greatestFiniteMagnitude)
  // The clamp spelled out on V: the generic `Clamp` call stayed a call per pixel.
  let lower = V(repeating: lower)
  let upper = V(repeating: upper)
  for _ in 0..<count {
    var maximum = V.maximum(start, x.load(V.self, at: 0))
    maximum = V.maximum(maximum, x.load(V.self, at: channels))
    maximum = V.maximum(maximum, x.load(V.self, at: rowStride))
    maximum = V.maximum(maximum, x.load(V.self, at: rowStride + channels))
    out.store(V.minimum(V.maximum(maximum, lower), upper), at: 0)
    x += step
    out += channels
  }
}
