/// The map from a model input's pixels back into the source image, built as MediaPipe's
/// OpenCV builds it for `warpPerspective`: `getPerspectiveTransform` from the rect's corners
/// to the input's corners (an 8×8 LU solve in double), then `invert` (the closed form for
/// 3×3).
///
/// In exact arithmetic the map is affine and simple. It is computed step for step anyway,
/// because its rounding noise decides results: an entry an ulp off (0.8593750000000001 for
/// 110/128) and a last row that is not exactly (0, 0, 1) move source coordinates that lie
/// exactly half way between two 1/32-pixel steps to one side or the other. That happens at
/// every image size not divisible by 4 for the 128-pixel detector, and it changed detection
/// scores by up to 1.7e-3 when the map was taken from the corners directly.
public struct PerspectiveMap: Equatable, Sendable {
  /// Row-major 3×3: destination (u, v, 1) ↦ source (x·w, y·w, w).
  public var m0, m1, m2, m3, m4, m5, m6, m7, m8: Double

  /// The inverse map for a rect whose corners in the image are `p` (bottom-left, top-left,
  /// top-right, bottom-right, as OpenCV's `RotatedRect::points` gives them) cut into an
  /// `outputWidth` × `outputHeight` input.
  public init(
    corners p: (SIMD2<Float>, SIMD2<Float>, SIMD2<Float>, SIMD2<Float>), outputWidth: Int, outputHeight: Int
  ) {
    let (w, h) = (Float(outputWidth), Float(outputHeight))
    // Each rect corner and the input corner it goes to: bottom-left, top-left, top-right,
    // bottom-right (a switch, not an array: this runs every frame).
    func corner(_ i: Int) -> (SIMD2<Float>, SIMD2<Float>) {
      switch i {
      case 0: (p.0, SIMD2(0, h))
      case 1: (p.1, SIMD2(0, 0))
      case 2: (p.2, SIMD2(w, 0))
      default: (p.3, SIMD2(w, h))
      }
    }
    let forward = withUnsafeTemporaryAllocation(of: Double.self, capacity: 8 * 8 + 8) { buffer in
      let a = buffer.baseAddress!
      let b = a + 64
      buffer.initialize(repeating: 0)
      for i in 0..<4 {
        let (s, d) = corner(i)
        a[i * 8 + 0] = Double(s.x)
        a[(i + 4) * 8 + 3] = Double(s.x)
        a[i * 8 + 1] = Double(s.y)
        a[(i + 4) * 8 + 4] = Double(s.y)
        a[i * 8 + 2] = 1
        a[(i + 4) * 8 + 5] = 1
        // The products are float products (OpenCV multiplies two `Point2f` fields), widened.
        a[i * 8 + 6] = Double(-s.x * d.x)
        a[i * 8 + 7] = Double(-s.y * d.x)
        a[(i + 4) * 8 + 6] = Double(-s.x * d.y)
        a[(i + 4) * 8 + 7] = Double(-s.y * d.y)
        b[i] = Double(d.x)
        b[i + 4] = Double(d.y)
      }
      // A failed solve leaves zeros (`cv::solve`), and m8 is set to 1 either way.
      let solved = Self.solveLU(a, b, count: 8)
      func x(_ i: Int) -> Double { solved ? b[i] : 0 }
      return PerspectiveMap(m0: x(0), m1: x(1), m2: x(2), m3: x(3), m4: x(4), m5: x(5), m6: x(6), m7: x(7), m8: 1)
    }
    self = forward.inverted()
  }

  /// A map from its nine entries.
  public init(
    m0: Double, m1: Double, m2: Double, m3: Double, m4: Double, m5: Double, m6: Double, m7: Double, m8: Double
  ) {
    (self.m0, self.m1, self.m2, self.m3, self.m4, self.m5, self.m6, self.m7, self.m8) = (
      m0, m1, m2, m3, m4, m5, m6, m7, m8
    )
  }

  /// `cv::invert` of a 3×3 double matrix with `DECOMP_LU`: the adjugate over the determinant,
  /// in OpenCV's order of operations; all zeros when the determinant is 0.
  func inverted() -> PerspectiveMap {
    let det = m0 * (m4 * m8 - m5 * m7) - m1 * (m3 * m8 - m5 * m6) + m2 * (m3 * m7 - m4 * m6)
    guard det != 0 else { return PerspectiveMap(m0: 0, m1: 0, m2: 0, m3: 0, m4: 0, m5: 0, m6: 0, m7: 0, m8: 0) }
    let d = 1 / det
    return PerspectiveMap(
      m0: (m4 * m8 - m5 * m7) * d, m1: (m2 * m7 - m1 * m8) * d, m2: (m1 * m5 - m2 * m4) * d,
      m3: (m5 * m6 - m3 * m8) * d, m4: (m0 * m8 - m2 * m6) * d, m5: (m2 * m3 - m0 * m5) * d,
      m6: (m3 * m7 - m4 * m6) * d, m7: (m1 * m6 - m0 * m7) * d, m8: (m0 * m4 - m1 * m3) * d)
  }

  /// OpenCV's small-matrix LU (`hal::LU64f`): Gaussian elimination with partial pivoting
  /// (the first largest pivot wins), then back substitution by division. Solves a·x = b in
  /// place (x in `b`); false when a pivot is below 100 ulps of 1.
  private static func solveLU(_ a: UnsafeMutablePointer<Double>, _ b: UnsafeMutablePointer<Double>, count m: Int)
    -> Bool
  {
    for i in 0..<m {
      var k = i
      for j in (i + 1)..<m where abs(a[j * m + i]) > abs(a[k * m + i]) { k = j }
      if abs(a[k * m + i]) < Double.ulpOfOne * 100 { return false }
      if k != i {
        for j in i..<m { swap(&a[i * m + j], &a[k * m + j]) }
        swap(&b[i], &b[k])
      }
      let d = -1 / a[i * m + i]
      for j in (i + 1)..<m {
        let alpha = a[j * m + i] * d
        for k in (i + 1)..<m { a[j * m + k] += alpha * a[i * m + k] }
        b[j] += alpha * b[i]
      }
    }
    for i in stride(from: m - 1, through: 0, by: -1) {
      var s = b[i]
      for k in (i + 1)..<m { s -= a[i * m + k] * b[k] }
      b[i] = s / a[i * m + i]
    }
    return true
  }
}
