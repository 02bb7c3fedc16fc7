import Foundation

/// A category a detection belongs to, with its score: MediaPipe's `ResultCategory`.
public struct ResultCategory: Sendable, Equatable, Hashable {
  /// The category's index in the model's label map (always 0 for faces).
  public var index: Int
  /// Confidence in 0...1.
  public var score: Float
  /// The label, such as "face".
  public var categoryName: String?
  /// A label for display, when the model has one.
  public var displayName: String?

  /// Creates a category.
  public init(index: Int, score: Float, categoryName: String?, displayName: String?) {
    self.index = index
    self.score = score
    self.categoryName = categoryName
    self.displayName = displayName
  }
}

/// A keypoint in normalized image coordinates: MediaPipe's `NormalizedKeypoint`.
///
/// Coordinates are fractions of the image width and height in the stored (unrotated)
/// image, and are not clamped: a keypoint of a face at the border may fall outside 0...1.
public struct NormalizedKeypoint: Sendable, Equatable, Hashable {
  /// The position.
  public var location: CGPoint
  /// What the keypoint marks, such as "leftEye".
  public var label: String?
  /// Confidence; 0 for face detector keypoints, which the model does not score.
  public var score: Float

  /// Creates a keypoint.
  public init(location: CGPoint, label: String?, score: Float) {
    self.location = location
    self.label = label
    self.score = score
  }

  /// Hashes the location's coordinates, the label and the score. Written out because CGPoint
  /// is not Hashable in Swift 6.0's Foundation on Linux, so it cannot be synthesized there.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(location.x)
    hasher.combine(location.y)
    hasher.combine(label)
    hasher.combine(score)
  }
}

/// One detected object: MediaPipe's `Detection`.
public struct Detection: Sendable, Equatable, Hashable {
  /// The categories with their scores, best first.
  public var categories: [ResultCategory]
  /// The box in pixels of the stored (unrotated) image, with integer edges computed as
  /// MediaPipe does: origin and size each truncated toward zero from the normalized box
  /// and bounded to the image.
  public var boundingBox: CGRect
  /// Keypoints, normalized; for faces the six of `FaceKeypoint`, in its order.
  public var keypoints: [NormalizedKeypoint]?
  /// Visage: the face landmark model's face presence in the detection's region, in 0...1,
  /// when the detector checked it (`FaceDetectorOptions.minFacePresenceConfidence`); nil
  /// otherwise.
  public var facePresence: Float?

  /// Creates a detection.
  public init(
    categories: [ResultCategory], boundingBox: CGRect, keypoints: [NormalizedKeypoint]?, facePresence: Float? = nil
  ) {
    self.categories = categories
    self.boundingBox = boundingBox
    self.keypoints = keypoints
    self.facePresence = facePresence
  }

  /// Hashes every property, the box by its four edges (CGRect is not Hashable in Swift 6.0's
  /// Foundation on Linux, as `NormalizedKeypoint`'s CGPoint is not).
  public func hash(into hasher: inout Hasher) {
    hasher.combine(categories)
    for edge in [boundingBox.origin.x, boundingBox.origin.y, boundingBox.size.width, boundingBox.size.height] {
      hasher.combine(edge)
    }
    hasher.combine(keypoints)
    hasher.combine(facePresence)
  }
}

extension Detection {
  /// Visage: how far the face is turned in the image plane, in degrees in (−180, 180]:
  /// the direction of the line from the eye on the image's left of an upright face to the
  /// other (keypoints 0 → 1, the line MediaPipe turns a face's landmark region by), measured
  /// clockwise on screen in pixels. 0 is upright, 90 a face whose top points right, 180 an
  /// upside-down face. Nil without the two eye keypoints.
  public func inPlaneRotation(imageWidth: Int, imageHeight: Int) -> Double? {
    guard let k = keypoints, k.count >= 2 else { return nil }
    let degrees = eyeLineDegrees(
      dx: (k[1].location.x - k[0].location.x) * Double(imageWidth),
      dy: (k[1].location.y - k[0].location.y) * Double(imageHeight))
    return degrees == -180 ? 180 : degrees
  }
}

/// The direction of the eye line (keypoint 0 to keypoint 1, in pixels) in degrees clockwise
/// on screen: 0 for an upright face, ±180 for one upside down.
func eyeLineDegrees(dx: Double, dy: Double) -> Double {
  atan2(dy, dx) * 180 / .pi
}

/// The six face keypoints in the order the detector outputs them.
///
/// Left and right follow MediaPipe's documentation of the face detector, which names the
/// eyes from the observer's point of view: `leftEye` is the eye on the image's left, which
/// is the subject's right eye.
public enum FaceKeypoint: Int, Sendable, CaseIterable {
  /// The eye on the image's left (the subject's right eye).
  case leftEye
  /// The eye on the image's right (the subject's left eye).
  case rightEye
  /// The tip of the nose.
  case noseTip
  /// The centre of the mouth.
  case mouth
  /// The tragion (ear) on the image's left.
  case leftEyeTragion
  /// The tragion (ear) on the image's right.
  case rightEyeTragion

  /// The label results carry, such as "leftEye".
  public var label: String {
    switch self {
    case .leftEye: "leftEye"
    case .rightEye: "rightEye"
    case .noseTip: "noseTip"
    case .mouth: "mouth"
    case .leftEyeTragion: "leftEyeTragion"
    case .rightEyeTragion: "rightEyeTragion"
    }
  }
}

/// What `FaceDetector` finds in one image or frame: MediaPipe's `FaceDetectorResult`.
public struct FaceDetectorResult: Sendable, Equatable {
  /// The faces, best score first (the order of non-maximum suppression).
  public var detections: [Detection]
  /// Visage: each detection's tracking ID, when `isTrackingEnabled` is set; else empty.
  public var faceTrackingIds: [Int]
  /// The timestamp of the frame; 0 in image mode.
  public var timestampInMilliseconds: Int
  /// Where an all-scales or any-rotation search's time went (`visage detect
  /// --profile-search`); nil for MediaPipe's single-model search. Not part of the result's
  /// value: `==` leaves it out, since no two runs take the same time.
  package var searchProfile: SearchProfile?

  public static func == (a: Self, b: Self) -> Bool {
    (a.detections, a.faceTrackingIds, a.timestampInMilliseconds)
      == (b.detections, b.faceTrackingIds, b.timestampInMilliseconds)
  }

  /// Creates a result.
  public init(detections: [Detection], faceTrackingIds: [Int] = [], timestampInMilliseconds: Int) {
    self.detections = detections
    self.faceTrackingIds = faceTrackingIds
    self.timestampInMilliseconds = timestampInMilliseconds
  }
}

extension RawDetection {
  /// The public form of a detection already projected to normalized image coordinates,
  /// with MediaPipe's `DetectionTransformationCalculator` pixel box: each of origin and size
  /// truncated toward zero independently, then bounded to [0, side].
  func detection(imageWidth: Int, imageHeight: Int) -> Detection {
    func pixels(_ value: Float, _ side: Int) -> Int {
      let product = value * Float(side)
      guard product.isFinite else { return product > 0 ? side : 0 }
      return max(min(Int(max(min(product, 1e9), -1e9)), side), 0)
    }
    let box = CGRect(
      x: pixels(xmin, imageWidth), y: pixels(ymin, imageHeight),
      width: pixels(width, imageWidth), height: pixels(height, imageHeight))
    let keypoints = zip(FaceKeypoint.allCases, self.keypoints).map { kind, point in
      NormalizedKeypoint(location: CGPoint(x: Double(point.x), y: Double(point.y)), label: kind.label, score: 0)
    }
    return Detection(
      categories: [ResultCategory(index: 0, score: score, categoryName: "face", displayName: nil)],
      boundingBox: box, keypoints: keypoints, facePresence: presence)
  }
}
