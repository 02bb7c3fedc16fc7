import Foundation

// How every result type encodes itself: the one place the JSON field names are written. The
// names are the MediaPipe Tasks iOS API's (and ML Kit's for `Face`), and the shapes those of
// the `visage` command line's contract (docs/cli.md), which its lines and visage-server's
// responses are encoded with. `ResultEncodingOptions` in the encoder's `userInfo` adds what a
// result does not hold itself.

extension ResultCategory: Encodable {
  private enum CodingKeys: String, CodingKey { case index, score, categoryName, displayName }

  /// Writes `index`, `score`, `categoryName` (null when absent) and `displayName` when present.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(index, forKey: .index)
    try c.encode(score, forKey: .score)
    try c.encode(categoryName, forKey: .categoryName)
    try c.encodeIfPresent(displayName, forKey: .displayName)
  }
}

extension NormalizedLandmark: Encodable {
  private enum CodingKeys: String, CodingKey { case x, y, z, visibility, presence }

  /// Writes `x`, `y`, `z`, and `visibility` and `presence` when present.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(x, forKey: .x)
    try c.encode(y, forKey: .y)
    try c.encode(z, forKey: .z)
    try c.encodeIfPresent(visibility, forKey: .visibility)
    try c.encodeIfPresent(presence, forKey: .presence)
  }
}

extension Classifications: Encodable {
  /// Writes the categories as an array: a face's blendshapes are one array of 52 categories,
  /// as the command line writes them (the head is always the blendshape model's only one).
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(categories)
  }
}

extension Matrix4x4: Encodable {
  /// Writes the matrix as four rows of four numbers.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(rows)
  }
}

extension NormalizedKeypoint: Encodable {
  private enum CodingKeys: String, CodingKey { case x, y, label }

  /// Writes `x` and `y` (normalized) and `label` (null when absent); the detector does not
  /// score keypoints, so their score is not written.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(Float(location.x), forKey: .x)
    try c.encode(Float(location.y), forKey: .y)
    try c.encode(label, forKey: .label)
  }
}

extension Detection: Encodable {
  private enum CodingKeys: String, CodingKey { case boundingBox, categories, keypoints, rotation, facePresence }
  private enum BoxKeys: String, CodingKey { case originX, originY, width, height }

  /// Writes the box in integer pixels (`originX`, `originY`, `width`, `height`),
  /// `categories`, `keypoints`, the in-plane `rotation` in degrees when the encoder's
  /// `ResultEncodingOptions` give the image size (null without eye keypoints), and
  /// `facePresence` when the detector checked it.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    var box = c.nestedContainer(keyedBy: BoxKeys.self, forKey: .boundingBox)
    try box.encode(Int(boundingBox.minX), forKey: .originX)
    try box.encode(Int(boundingBox.minY), forKey: .originY)
    try box.encode(Int(boundingBox.width), forKey: .width)
    try box.encode(Int(boundingBox.height), forKey: .height)
    try c.encode(categories, forKey: .categories)
    try c.encode(keypoints ?? [], forKey: .keypoints)
    let options = ResultEncodingOptions.of(encoder)
    if let width = options.imageWidth, let height = options.imageHeight {
      try c.encode(inPlaneRotation(imageWidth: width, imageHeight: height).map(Float.init), forKey: .rotation)
    }
    try c.encodeIfPresent(facePresence, forKey: .facePresence)
  }
}

extension FaceDetectorResult: Encodable {
  private enum CodingKeys: String, CodingKey { case detections, faceTrackingIds }

  /// Writes `detections`, and `faceTrackingIds` when there are any or the encoder's options
  /// ask for them; the timestamp belongs to the frame, whose fields the caller writes.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(detections, forKey: .detections)
    if !faceTrackingIds.isEmpty || ResultEncodingOptions.of(encoder).includedExtraOutputs.contains(.faceTrackingIds) {
      try c.encode(faceTrackingIds, forKey: .faceTrackingIds)
    }
  }
}

extension FaceLandmarkerResult: Encodable {
  private enum CodingKeys: String, CodingKey {
    case faceLandmarks, faceBlendshapes, facialTransformationMatrixes, faceHeadPoses, faceMetricLandmarks
    case faceIrisDistances, faceTrackingIds, faceScores
  }

  /// Writes `faceLandmarks`, then `faceBlendshapes` and `facialTransformationMatrixes` unless
  /// the encoder's `ResultEncodingOptions` leave them out, then each of Visage's outputs
  /// (`LandmarkerExtraOutput`, a face without one as null) when there are any or the options
  /// ask for it.
  public func encode(to encoder: any Encoder) throws {
    let options = ResultEncodingOptions.of(encoder)
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(faceLandmarks, forKey: .faceLandmarks)
    if options.includesFaceBlendshapes { try c.encode(faceBlendshapes, forKey: .faceBlendshapes) }
    if options.includesFacialTransformationMatrixes {
      try c.encode(facialTransformationMatrixes, forKey: .facialTransformationMatrixes)
    }
    func extra(_ value: some Encodable & Collection, _ key: CodingKeys, _ output: LandmarkerExtraOutput) throws {
      if options.includedExtraOutputs.contains(output) || !value.isEmpty { try c.encode(value, forKey: key) }
    }
    try extra(faceHeadPoses, .faceHeadPoses, .faceHeadPoses)
    try extra(faceMetricLandmarks, .faceMetricLandmarks, .faceMetricLandmarks)
    try extra(faceIrisDistances, .faceIrisDistances, .faceIrisDistances)
    try extra(faceTrackingIds, .faceTrackingIds, .faceTrackingIds)
    try extra(faceScores, .faceScores, .faceScores)
  }
}

/// Writes a point or angles as `x`, `y` and `z`.
private func encodeXYZ(_ x: Float, _ y: Float, _ z: Float, to encoder: any Encoder) throws {
  enum Keys: String, CodingKey { case x, y, z }
  var c = encoder.container(keyedBy: Keys.self)
  try c.encode(x, forKey: .x)
  try c.encode(y, forKey: .y)
  try c.encode(z, forKey: .z)
}

extension Landmark: Encodable {
  /// Writes `x`, `y` and `z`, in centimetres.
  public func encode(to encoder: any Encoder) throws { try encodeXYZ(x, y, z, to: encoder) }
}

extension IrisDistances: Encodable {
  private enum CodingKeys: String, CodingKey { case left, right }

  /// Writes `left` and `right`, in millimetres.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(left, forKey: .left)
    try c.encode(right, forKey: .right)
  }
}

extension FaceScores: Encodable {
  private enum CodingKeys: String, CodingKey { case detection, presence }

  /// Writes `detection` and `presence`.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(detection, forKey: .detection)
    try c.encode(presence, forKey: .presence)
  }
}

extension HeadEulerAngles: Encodable {
  /// Writes `x`, `y` and `z`, in degrees.
  public func encode(to encoder: any Encoder) throws { try encodeXYZ(x, y, z, to: encoder) }
}

/// A point in pixels, written as `x` and `y`.
private struct PixelPoint: Encodable {
  let x: Float
  let y: Float
  init(_ point: CGPoint) {
    x = Float(point.x)
    y = Float(point.y)
  }
}

/// Keys named at run time: a face's landmarks and contours by their types' names.
private struct NamedKey: CodingKey {
  let stringValue: String
  init(_ name: String) { stringValue = name }
  init?(stringValue: String) { self.stringValue = stringValue }
  var intValue: Int? { nil }
  init?(intValue: Int) { nil }
}

extension Face: Encodable {
  private enum CodingKeys: String, CodingKey {
    case frame, headEulerAngleX, headEulerAngleY, headEulerAngleZ, landmarks, contours, smilingProbability
    case leftEyeOpenProbability, rightEyeOpenProbability, trackingID
  }
  private enum FrameKeys: String, CodingKey { case x, y, width, height }

  /// Writes the `frame` in pixels and the three head angles, then what the analyzer was
  /// asked for: `landmarks` and `contours` by type name (in pixels), the three
  /// probabilities, and `trackingID`, each only when the face has it.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    var box = c.nestedContainer(keyedBy: FrameKeys.self, forKey: .frame)
    // Positions come from Float landmarks: written at Float's precision, in its shortest form
    // (180.71599, not 180.7159881591797).
    try box.encode(Float(frame.minX), forKey: .x)
    try box.encode(Float(frame.minY), forKey: .y)
    try box.encode(Float(frame.width), forKey: .width)
    try box.encode(Float(frame.height), forKey: .height)
    try c.encode(headEulerAngleX, forKey: .headEulerAngleX)
    try c.encode(headEulerAngleY, forKey: .headEulerAngleY)
    try c.encode(headEulerAngleZ, forKey: .headEulerAngleZ)
    if !landmarks.isEmpty {
      var named = c.nestedContainer(keyedBy: NamedKey.self, forKey: .landmarks)
      for landmark in landmarks {
        try named.encode(PixelPoint(landmark.position), forKey: NamedKey(landmark.type.rawValue))
      }
    }
    if !contours.isEmpty {
      var named = c.nestedContainer(keyedBy: NamedKey.self, forKey: .contours)
      for contour in contours {
        try named.encode(contour.points.map(PixelPoint.init), forKey: NamedKey(contour.type.rawValue))
      }
    }
    try c.encodeIfPresent(smilingProbability, forKey: .smilingProbability)
    try c.encodeIfPresent(leftEyeOpenProbability, forKey: .leftEyeOpenProbability)
    try c.encodeIfPresent(rightEyeOpenProbability, forKey: .rightEyeOpenProbability)
    try c.encodeIfPresent(trackingID, forKey: .trackingID)
  }
}
