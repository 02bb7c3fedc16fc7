import Foundation

/// Visage: a face cut out upright and centred, as face recognition models take it: the face's
/// five points (the eye centres, the nose tip, the mouth corners) brought by a similarity
/// (turn, scale, shift) as close as they go to a template, and the picture sampled through it.
public struct FaceCropOptions: Sendable, Equatable {
  /// The crop's side, in pixels. Default 112.
  public var size: Int
  /// Room around the template on each side, as a fraction of the template's own size: the
  /// template takes 1 / (1 + 2·margin) of the crop's side. 0 is the template as recognition
  /// models were trained on; 0.25 shows the face at two thirds of that size.
  public var margin: Double

  /// Creates options.
  public init(size: Int = 112, margin: Double = 0) {
    self.size = size
    self.margin = margin
  }

  /// The five points' places in a 112×112 crop: ArcFace's alignment template (InsightFace's
  /// `face_align.py`, `arcface_dst`), in the order the eye on the image's left (the subject's
  /// right), the other eye, the nose tip, the mouth corner on the image's left, the other.
  public static let template: [SIMD2<Double>] = [
    SIMD2(38.2946, 51.6963), SIMD2(73.5318, 51.5014), SIMD2(56.0252, 71.7366), SIMD2(41.5493, 92.3655),
    SIMD2(70.7299, 92.2041),
  ]
}

extension MPImage {
  /// The face whose landmarks (a landmarker result's 478, normalized to this image's stored
  /// pixels) are given, cut out upright as `options` says; pixels outside the picture are black.
  /// The crop is RGB, `options.size` square, orientation `.up`.
  ///
  /// - Throws: `VisionTaskError.invalidOption` for fewer than 478 landmarks (or landmarks that
  ///   coincide or are not finite), a size outside 1...4096 or a margin outside 0..<10.
  public func alignedFaceCrop(landmarks: [NormalizedLandmark], options: FaceCropOptions = FaceCropOptions()) throws
    -> MPImage
  {
    guard landmarks.count >= 478 else {
      throw VisionTaskError.invalidOption("a face crop needs the 478 landmarks, got \(landmarks.count)")
    }
    guard (1...4096).contains(options.size), options.margin >= 0, options.margin < 10 else {
      throw VisionTaskError.invalidOption(
        "invalid face crop options: size must be in 1...4096 and margin in 0..<10, got \(options.size), \(options.margin)"
      )
    }
    let (w, h) = (Double(width), Double(height))
    // In the sampler's coordinates, where pixel i's centre is at i (normalized x · width puts
    // it at i + 0.5).
    func pixel(_ indices: [Int]) -> SIMD2<Double> {
      indices.reduce(SIMD2<Double>()) { $0 + SIMD2(Double(landmarks[$1].x) * w, Double(landmarks[$1].y) * h) }
        / Double(indices.count) - SIMD2(repeating: 0.5)
    }
    // The eye centres as ML Kit's eye landmarks are (the eye opening's 16 points), so gaze does
    // not move them; the subject's right eye and mouth corner are on the image's left.
    let source = [
      pixel(FaceMeshFeatures.contourIndices[.rightEye]!), pixel(FaceMeshFeatures.contourIndices[.leftEye]!),
      pixel([1]), pixel([61]), pixel([291]),
    ]
    let scale = Double(options.size) / 112 / (1 + 2 * options.margin)
    let center = SIMD2(repeating: Double(options.size) / 2)
    let target = FaceCropOptions.template.map { ($0 - SIMD2(56, 56)) * scale + center }
    let (a, b, t) = Self.similarity(from: source, to: target)
    // Sampling goes from each crop pixel back into the picture: the inverse similarity.
    let norm = a * a + b * b
    guard norm > 0, norm.isFinite, t.x.isFinite, t.y.isFinite else {
      throw VisionTaskError.invalidOption("the face's landmarks coincide or are not finite: no crop")
    }
    let n = options.size
    var out = [UInt8](repeating: 0, count: n * n * 3)
    withPixels { pixels in
      for v in 0..<n {
        for u in 0..<n {
          let q = SIMD2(Double(u), Double(v)) - t
          let p = SIMD2((a * q.x + b * q.y) / norm, (-b * q.x + a * q.y) / norm)
          sampleBilinear(pixels, at: p, into: &out, offset: (v * n + u) * 3)
        }
      }
    }
    return try MPImage(width: n, height: n, rgb: out)
  }

  /// The pixel value at `p` (pixel centres at whole coordinates), bilinear, black outside.
  private func sampleBilinear(
    _ pixels: UnsafeBufferPointer<UInt8>, at p: SIMD2<Double>, into out: inout [UInt8], offset: Int
  ) {
    // Far outside (or not a number, from landmarks far off the picture): black, before any
    // conversion to Int could trap.
    guard p.x > -2, p.y > -2, p.x < Double(width) + 1, p.y < Double(height) + 1 else { return }
    let x0 = Int(floor(p.x))
    let y0 = Int(floor(p.y))
    let (fx, fy) = (p.x - Double(x0), p.y - Double(y0))
    for c in 0..<3 {
      func at(_ x: Int, _ y: Int) -> Double {
        guard x >= 0, y >= 0, x < width, y < height else { return 0 }
        return Double(pixels[(y * width + x) * 3 + c])
      }
      let top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx
      let bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx
      out[offset + c] = UInt8(min(255, max(0, (top * (1 - fy) + bottom * fy).rounded())))
    }
  }

  /// The least-squares similarity q ≈ [[a, −b], [b, a]]·p + t from `source` to `target`
  /// (Umeyama's, in two dimensions, without reflection).
  private static func similarity(from source: [SIMD2<Double>], to target: [SIMD2<Double>])
    -> (a: Double, b: Double, t: SIMD2<Double>)
  {
    let count = Double(source.count)
    let ps = source.reduce(SIMD2<Double>(), +) / count
    let qs = target.reduce(SIMD2<Double>(), +) / count
    var (dot, cross, norm) = (0.0, 0.0, 0.0)
    for (p, q) in zip(source, target) {
      let (dp, dq) = (p - ps, q - qs)
      dot += dp.x * dq.x + dp.y * dq.y
      cross += dp.x * dq.y - dp.y * dq.x
      norm += dp.x * dp.x + dp.y * dp.y
    }
    guard norm > 0 else { return (0, 0, qs) }
    let (a, b) = (dot / norm, cross / norm)
    return (a, b, qs - SIMD2(a * ps.x - b * ps.y, b * ps.x + a * ps.y))
  }
}
