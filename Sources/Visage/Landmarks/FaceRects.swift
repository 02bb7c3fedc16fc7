import Foundation

/// The regions the landmark model reads: from a fresh detection (MediaPipe's face detector
/// graph, `DetectionsToRectsCalculator` and `RectTransformationCalculator`) or from the previous frame's landmarks (the
/// landmarker's tracking loop, §3.7). Float arithmetic in MediaPipe's order.
enum FaceRects {
  /// `NormalizeRadians`: an angle into [−π, π), computed in double as MediaPipe does.
  static func normalizeRadians(_ angle: Float) -> Float {
    Float(Double(angle) - 2 * Double.pi * floor((Double(angle) - -Double.pi) / (2 * Double.pi)))
  }

  /// The rotation that turns the vector from `start` to `end` (normalized points, measured in
  /// pixels) horizontal: `DetectionsToRectsCalculator::ComputeRotation` with target angle 0.
  static func rotation(from start: SIMD2<Float>, to end: SIMD2<Float>, imageWidth: Int, imageHeight: Int) -> Float {
    let x0 = start.x * Float(imageWidth)
    let y0 = start.y * Float(imageHeight)
    let x1 = end.x * Float(imageWidth)
    let y1 = end.y * Float(imageHeight)
    // MediaPipe subtracts from the target angle, so a level line gives +0, never −0.
    let target: Float = 0
    // MediaPipe's `std::atan2` on floats is the C library's `atan2f`, which glibc rounds
    // correctly only from 2.41 (before, about 1 input in 5 comes out a float step off). One
    // step turns a small face's region enough to move its landmarks by 1e-4, so the builds
    // differed by platform. In double, then rounded once, the angle is the correctly rounded
    // float everywhere (its error is far below a float step): arm64 and x86-64 agree.
    let angle = Float(atan2(Double(-(y1 - y0)), Double(x1 - x0)))
    return normalizeRadians(target - angle)
  }

  /// The landmark region for a projected detection: its box centre and size, turned by the
  /// eye keypoints (0 → 1), scaled by 1.5 without squaring.
  static func region(for detection: RawDetection, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
    let rotation = rotation(
      from: detection.keypoints[0], to: detection.keypoints[1], imageWidth: imageWidth, imageHeight: imageHeight)
    return NormalizedRect(
      xCenter: detection.xmin + detection.width / 2, yCenter: detection.ymin + detection.height / 2,
      width: detection.width * 1.5, height: detection.height * 1.5, rotation: rotation)
  }

  /// The next frame's region from this frame's (raw, unsmoothed) landmarks: the bounds of
  /// all 478, turned by the eye corners 33 → 263, made square on its long side in pixels,
  /// scaled by 1.5.
  static func region(forLandmarks landmarks: [SIMD3<Float>], imageWidth: Int, imageHeight: Int) -> NormalizedRect {
    // MediaPipe starts the maxima at FLT_MIN (the smallest positive float), not −∞.
    var xmin = Float.greatestFiniteMagnitude
    var xmax = Float.leastNormalMagnitude
    var ymin = Float.greatestFiniteMagnitude
    var ymax = Float.leastNormalMagnitude
    for p in landmarks {
      xmin = min(xmin, p.x)
      xmax = max(xmax, p.x)
      ymin = min(ymin, p.y)
      ymax = max(ymax, p.y)
    }
    let width = xmax - xmin
    let height = ymax - ymin
    let rotation = rotation(
      from: SIMD2(landmarks[33].x, landmarks[33].y), to: SIMD2(landmarks[263].x, landmarks[263].y),
      imageWidth: imageWidth, imageHeight: imageHeight)
    let longSide = max(width * Float(imageWidth), height * Float(imageHeight))
    return NormalizedRect(
      xCenter: xmin + width / 2, yCenter: ymin + height / 2,
      width: longSide / Float(imageWidth) * 1.5, height: longSide / Float(imageHeight) * 1.5, rotation: rotation)
  }

  /// Overlap of two regions as axis-aligned boxes (rotation ignored), as MediaPipe's
  /// association calculator compares tracked and detected faces.
  static func intersectionOverUnion(_ a: NormalizedRect, _ b: NormalizedRect) -> Float {
    func box(_ r: NormalizedRect) -> RawDetection.Box {
      (r.xCenter - r.width / 2, r.yCenter - r.height / 2, r.width, r.height)
    }
    return NonMaxSuppression.intersectionOverUnion(box(a), box(b))
  }
}
