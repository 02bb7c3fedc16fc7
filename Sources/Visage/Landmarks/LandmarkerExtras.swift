import Foundation

/// A point in metric space, in centimetres: MediaPipe's `Landmark` (a world landmark).
public struct Landmark: Sendable, Equatable, Hashable {
  /// x, to the face's left in the canonical face's frame.
  public var x: Float
  /// y, up.
  public var y: Float
  /// z, out of the face toward the viewer.
  public var z: Float

  /// Creates a landmark.
  public init(x: Float, y: Float, z: Float) {
    self.x = x
    self.y = y
    self.z = z
  }
}

/// Visage: how far each eye is from the camera, in millimetres, along the line of sight
/// (`FaceLandmarkerOptions.outputFaceIrisDistances`). "Left" and "right" are the subject's.
public struct IrisDistances: Sendable, Equatable, Hashable {
  /// The subject's left eye (the image's right in an unmirrored photo).
  public var left: Float
  /// The subject's right eye.
  public var right: Float

  /// Creates distances.
  public init(left: Float, right: Float) {
    self.left = left
    self.right = right
  }
}

/// Visage: the scores that admitted a face (`FaceLandmarkerOptions.outputFaceScores`).
public struct FaceScores: Sendable, Equatable, Hashable {
  /// The face detector's score for the detection the face was found from; for a face
  /// followed from earlier frames, the score of the last detection that found it. Nil when
  /// no detection did: a region the caller gave, or a followed face whose number changed.
  public var detection: Float?
  /// The landmark model's face presence for the face in this image, in 0...1.
  public var presence: Float

  /// Creates scores.
  public init(detection: Float?, presence: Float) {
    self.detection = detection
    self.presence = presence
  }
}

/// The landmarker's outputs beyond MediaPipe's, computed from the pipeline's faces, and the
/// state they keep between frames: tracking IDs, each tracked face's first detection score
/// and its smoothed iris distances.
///
/// Not thread-safe: `FaceLandmarker` runs it inside its `TaskRunner`.
final class LandmarkerExtras {
  /// One face's extra outputs; nil where not asked for or not known.
  struct Output {
    var headPose: HeadEulerAngles?
    var trackingID: Int?
    var irisDistances: IrisDistances?
    var scores: FaceScores?
  }

  /// The average human iris diameter, in millimetres (MediaPipe's IrisToDepthCalculator).
  static let irisDiameter = 11.8
  /// The weight a new frame's distance gets in a stream (MediaPipe's: 0.1).
  static let irisDistanceUpdateWeight = 0.1

  private let options: FaceLandmarkerOptions
  private var tracker = FaceTracker()
  /// By tracking ID: the detection score that first found the face, and its smoothed iris
  /// distances.
  private var followed: [Int: (detection: Float?, iris: IrisDistances?)] = [:]

  init(options: FaceLandmarkerOptions) {
    self.options = options
  }

  /// Whether any extra output was asked for.
  var isNeeded: Bool {
    options.outputFaceHeadPoses || options.isTrackingEnabled || options.outputFaceIrisDistances
      || options.outputFaceScores
  }

  /// Forgets followed faces (IDs keep counting up).
  func reset() {
    tracker.reset()
    followed = [:]
  }

  /// One output per face, or none at all when no extra output was asked for.
  func outputs(_ faces: [LandmarkerPipeline.Face], image: MPImage, streaming: Bool) -> [Output] {
    // Nothing asked for: nothing computed or allocated, frame after frame.
    guard isNeeded else { return [] }
    var outputs = [Output](repeating: Output(), count: faces.count)
    let view = UprightView(image)
    // IDs follow faces from call to call; a stream needs them also to carry scores and
    // smoothed distances over.
    let needsIDs =
      options.isTrackingEnabled || (streaming && (options.outputFaceScores || options.outputFaceIrisDistances))
    let ids = needsIDs ? tracker.assign(faces.map { Self.frame($0.landmarks, view) }) : []
    var next: [Int: (detection: Float?, iris: IrisDistances?)] = [:]
    let focal = Self.focalLength(image, verticalFieldOfView: options.verticalFieldOfView(for: image))
    for (i, face) in faces.enumerated() {
      let id = ids.isEmpty ? nil : ids[i]
      // Only a stream carries a face's past over; still images (and given regions) stand alone.
      let earlier = streaming ? id.flatMap { followed[$0] } : nil
      if options.outputFaceHeadPoses {
        outputs[i].headPose = face.transformationMatrix.map {
          HeadPose.eulerAngles($0, quarterTurns: view.quarterTurns)
        }
      }
      if options.isTrackingEnabled { outputs[i].trackingID = id }
      let detection = face.detection?.score ?? earlier?.detection ?? nil
      if options.outputFaceScores { outputs[i].scores = FaceScores(detection: detection, presence: face.presence) }
      var iris: IrisDistances?
      if options.outputFaceIrisDistances {
        let new = Self.irisDistances(face.landmarks, width: image.width, height: image.height, focalLength: focal)
        outputs[i].irisDistances = new
        iris = new
        if let old = earlier?.iris {
          let w = Float(Self.irisDistanceUpdateWeight)
          outputs[i].irisDistances = new.map {
            IrisDistances(left: (1 - w) * old.left + w * $0.left, right: (1 - w) * old.right + w * $0.right)
          }
          // A frame whose irises have no size keeps the smoothed value for the next one.
          iris = outputs[i].irisDistances ?? old
        }
      }
      if let id { next[id] = (detection, iris) }
    }
    followed = next
    return outputs
  }

  /// The focal length in pixels of the camera the geometry assumes, for the stored image.
  static func focalLength(_ image: MPImage, verticalFieldOfView degrees: Float) -> Double {
    focalLength(height: image.height, verticalFieldOfView: degrees)
  }

  static func focalLength(height: Int, verticalFieldOfView degrees: Float) -> Double {
    (Double(height) / 2) / tan(Double(degrees) / 2 * .pi / 180)
  }

  /// Each eye's distance, MediaPipe's IrisToDepthCalculator: the iris's size in pixels is the
  /// mean of its horizontal and vertical diameters (iris points 1–3 and 2–4 around the centre
  /// 0), and the distance along the ray through its centre is
  /// 11.8 mm · √(f² + r²) / size, with r the centre's distance from the image's centre.
  /// Nil when an iris has no size (landmarks collapsed to a point).
  static func irisDistances(_ landmarks: [SIMD3<Float>], width: Int, height: Int, focalLength f: Double)
    -> IrisDistances?
  {
    guard landmarks.count >= 478 else { return nil }
    let (w, h) = (Double(width), Double(height))
    func pixel(_ i: Int) -> SIMD2<Double> { SIMD2(Double(landmarks[i].x) * w, Double(landmarks[i].y) * h) }
    func distance(center: Int) -> Float? {
      func length(_ a: Int, _ b: Int) -> Double {
        let d = pixel(a) - pixel(b)
        return (d * d).sum().squareRoot()
      }
      let size = (length(center + 1, center + 3) + length(center + 2, center + 4)) / 2
      guard size > 0, size.isFinite else { return nil }
      let r = pixel(center) - SIMD2(w / 2, h / 2)
      return Float(irisDiameter * (f * f + (r * r).sum()).squareRoot() / size)
    }
    // 468–472 is the subject's right iris, 473–477 the left (FaceLandmarksConnections).
    guard let right = distance(center: 468), let left = distance(center: 473) else { return nil }
    return IrisDistances(left: left, right: right)
  }

  /// A face's box in pixels of the upright picture, from its landmarks.
  private static func frame(_ landmarks: [SIMD3<Float>], _ view: UprightView) -> CGRect {
    let points = landmarks.map(view.point)
    let xs = points.map(\.x)
    let ys = points.map(\.y)
    let (x0, y0) = (xs.min() ?? 0, ys.min() ?? 0)
    return CGRect(x: x0, y: y0, width: (xs.max() ?? 0) - x0, height: (ys.max() ?? 0) - y0)
  }
}
