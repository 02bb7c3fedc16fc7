import VisageKernels

/// MediaPipe's `ImageToTensorCalculator` on the CPU: a turned region of an image into a
/// model's float input, plus the map from the input back to the image.
struct ImageToTensor: Sendable {
  let width: Int
  let height: Int
  /// Letterbox the region to the input's aspect ratio (detectors) or stretch it (landmarks).
  let keepAspectRatio: Bool
  let border: BorderMode
  /// The float each 8-bit level becomes.
  let levels: LevelMap

  init(width: Int, height: Int, keepAspectRatio: Bool, border: BorderMode, range: ClosedRange<Float>) {
    self.width = width
    self.height = height
    self.keepAspectRatio = keepAspectRatio
    self.border = border
    self.levels = LevelMap(range: range)
  }

  /// Fills `tensor` (height × width × 3 floats) from `rect` of `image` and returns the map
  /// from normalized tensor coordinates to normalized image coordinates.
  func convert(
    _ image: MPImage, rect: NormalizedRect, into tensor: UnsafeMutableBufferPointer<Float>
  ) throws(VisionTaskError) -> ProjectionMatrix {
    precondition(tensor.count == width * height * 3, "tensor size does not match the converter")
    var roi = RotatedRect(rect, imageWidth: image.width, imageHeight: image.height)
    guard roi.isValid else {
      throw .invalidImage("the region to read is empty or not finite (\(rect))")
    }
    if keepAspectRatio { roi.padToAspect(tensorWidth: width, tensorHeight: height) }
    image.withSource { source in
      FixedPointWarp.optimized(
        source, map: PerspectiveMap(roi: roi, outputWidth: width, outputHeight: height), outputWidth: width,
        outputHeight: height, border: border, levels: levels, into: tensor.baseAddress!)
    }
    return ProjectionMatrix(roi: roi, imageWidth: image.width, imageHeight: image.height)
  }
}

extension PerspectiveMap {
  /// The inverse map for `roi` cut into an `outputWidth` × `outputHeight` input.
  init(roi: RotatedRect, outputWidth: Int, outputHeight: Int) {
    self.init(corners: roi.boxPoints(), outputWidth: outputWidth, outputHeight: outputHeight)
  }
}

extension MPImage {
  /// Calls `body` with the image's pixels as the warp's source.
  func withSource<R>(_ body: (FixedPointWarp.Source) -> R) -> R {
    withPixels { body(FixedPointWarp.Source(pixels: $0.baseAddress!, width: width, height: height)) }
  }
}
