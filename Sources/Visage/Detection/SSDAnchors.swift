/// The anchor grid of MediaPipe's `SsdAnchorsCalculator` for BlazeFace models.
///
/// Both face detectors use fixed-size anchors (w = h = 1), so an anchor is only a centre
/// and the scales the calculator computes never matter; what matters is the order: layers
/// with the same stride are merged, then rows, columns and the anchors of one cell.
struct SSDAnchors: Sendable {
  /// Anchor centres in normalized tensor coordinates, in the model's output order.
  let centers: [SIMD2<Float>]

  /// - Parameters:
  ///   - inputSize: the model's square input side.
  ///   - strides: one per layer.
  ///   - anchorsPerLayer: anchors each layer adds per cell (aspect ratios, plus one for the
  ///     interpolated scale when that ratio is positive).
  init(inputSize: Int, strides: [Int], anchorsPerLayer: Int) {
    var centers: [SIMD2<Float>] = []
    var layer = 0
    while layer < strides.count {
      var last = layer
      while last < strides.count && strides[last] == strides[layer] { last += 1 }
      let perCell = anchorsPerLayer * (last - layer)
      let size = Int((Float(inputSize) / Float(strides[layer])).rounded(.up))
      for y in 0..<size {
        for x in 0..<size {
          let center = SIMD2((Float(x) + 0.5) / Float(size), (Float(y) + 0.5) / Float(size))
          centers.append(contentsOf: repeatElement(center, count: perCell))
        }
      }
      layer = last
    }
    self.centers = centers
  }

  /// Short range, 128×128: strides 8, 16, 16, 16 with one aspect ratio plus an
  /// interpolated scale, giving 2 anchors per cell per layer, 896 in all.
  static let shortRange = SSDAnchors(inputSize: 128, strides: [8, 16, 16, 16], anchorsPerLayer: 2)
  /// Full range, 192×192: one stride-4 layer, one anchor per cell, 2304 in all.
  static let fullRange = SSDAnchors(inputSize: 192, strides: [4], anchorsPerLayer: 1)
}
