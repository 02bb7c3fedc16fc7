import Foundation

/// A face's head pose as ML Kit gives it (`headEulerAngleX/Y/Z`), in degrees, in the upright
/// picture: `x` pitch, positive when the face looks up; `y` yaw, positive when the nose
/// points to the image's right; `z` roll, positive when the face is rotated
/// counter-clockwise in the image.
public struct HeadEulerAngles: Sendable, Equatable, Hashable {
  /// Pitch in degrees.
  public var x: Float
  /// Yaw in degrees.
  public var y: Float
  /// Roll in degrees.
  public var z: Float

  /// Creates angles.
  public init(x: Float, y: Float, z: Float) {
    self.x = x
    self.y = y
    self.z = z
  }
}

/// ML Kit's head Euler angles from MediaPipe's facial transformation matrix.
///
/// The matrix maps the canonical face (x toward the subject's left, y up, z out of the face)
/// into the virtual camera's space (x right, y up, z toward the viewer), so its rotation
/// columns are the face's own axes seen from the camera. Two corrections come first:
/// - The image's orientation: the matrix describes the stored pixels, ML Kit the upright
///   picture, which is the stored one turned clockwise by `quarterTurns` × 90°; that is a turn
///   about the camera's z axis.
/// - The line of sight: the geometry stage places the face in a virtual camera (63° vertical
///   field of view) and its pose partly follows the ray from the camera to the face, so the
///   same face pasted at different places in a picture reads different angles (yaw and pitch
///   follow a fraction of the ray's angle). Turning the pose by `lineOfSightCorrection` (0.3)
///   of the rotation that brings the ray onto the optical axis makes a face read about the
///   same yaw and pitch anywhere in the picture, as a pose read from the face's appearance
///   should: astronaut.png's head pasted at the corners, edges and centre of a 640×480 canvas
///   reads yaw and pitch that spread over less than 4°
///   (`FaceAnalyzerTests.anglesDoNotDependOnWhereTheFaceIs`).
///
/// The rotation is then split as yaw · pitch · roll (R = Ry(Y) · Rx(−X) · Rz(Z)): the face's
/// forward axis gives yaw (toward +x, the image's right, is positive) and pitch (toward +y,
/// up, is positive); its up axis, after those, gives roll (toward −x, counter-clockwise in the
/// image, is positive).
enum HeadPose {
  /// The fraction of the line-of-sight rotation taken out of the pose (see above).
  static let lineOfSightCorrection = 0.3

  /// The angles in degrees: X pitch, Y yaw, Z roll, with ML Kit's signs.
  static func eulerAngles(_ matrix: Matrix4x4, quarterTurns: Int) -> HeadEulerAngles {
    // Rows of the 3×3 rotation, columns normalized (the fit may carry a scale).
    var r = (0..<3).map { row in SIMD3<Double>((0..<3).map { Double(matrix[row, $0]) }) }
    for column in 0..<3 {
      let norm = (r[0][column] * r[0][column] + r[1][column] * r[1][column] + r[2][column] * r[2][column]).squareRoot()
      guard norm > 0 else { return HeadEulerAngles(x: 0, y: 0, z: 0) }
      for row in 0..<3 { r[row][column] /= norm }
    }
    var t = SIMD3<Double>(Double(matrix[0, 3]), Double(matrix[1, 3]), Double(matrix[2, 3]))

    // Upright picture: a clockwise turn in the image is a turn by −θ about the camera's z.
    let theta = -Double(quarterTurns) * Double.pi / 2
    let turn = [SIMD3(cos(theta), -sin(theta), 0), SIMD3(sin(theta), cos(theta), 0), SIMD3<Double>(0, 0, 1)]
    r = multiply(turn, r)
    t = SIMD3((turn[0] * t).sum(), (turn[1] * t).sum(), (turn[2] * t).sum())

    // Line of sight: turn by a fraction of the rotation that brings the face-to-camera
    // direction onto +z (Rodrigues' formula).
    let length = (t * t).sum().squareRoot()
    if length > 0 {
      let v = -t / length
      let axis = SIMD3(v.y, -v.x, 0)  // v × (0, 0, 1)
      let sine = (axis * axis).sum().squareRoot()
      let cosine = v.z
      if sine > 1e-12 && cosine > -0.999 {
        let angle = atan2(sine, cosine) * lineOfSightCorrection
        let k = axis / sine
        let kk = [SIMD3(0, -k.z, k.y), SIMD3(k.z, 0, -k.x), SIMD3(-k.y, k.x, 0)]
        let kk2 = multiply(kk, kk)
        // Rodrigues' formula, I + sin θ K + (1 − cos θ) K², row by row.
        let (s, c): (Double, Double) = (sin(angle), 1 - cos(angle))
        let q: [SIMD3<Double>] = (0..<3).map { i in
          var identity = SIMD3<Double>.zero
          identity[i] = 1
          return identity + s * kk[i] + c * kk2[i]
        }
        r = multiply(q, r)
      }
    }

    let degrees = 180 / Double.pi
    let x = asin(min(1, max(-1, r[1][2]))) * degrees
    let y = atan2(r[0][2], r[2][2]) * degrees
    let z = atan2(r[1][0], r[1][1]) * degrees
    return HeadEulerAngles(x: Float(x), y: Float(y), z: Float(z))
  }

  /// The product a · b of two 3×3 matrices given as rows.
  private static func multiply(_ a: [SIMD3<Double>], _ b: [SIMD3<Double>]) -> [SIMD3<Double>] {
    a.map { row in row[0] * b[0] + row[1] * b[1] + row[2] * b[2] }
  }
}
