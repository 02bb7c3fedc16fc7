import Visage

/// Cloud Vision's 36 face landmark types (`FaceAnnotation.Landmark.Type`, in its order) and
/// where each sits on MediaPipe's 478-point mesh; docs/server.md has the table.
///
/// Google names left and right "from the vantage of the viewer" (its proto's words): LEFT_EYE
/// is the eye on the image's left of an upright face, the subject's right eye. The mesh's
/// "left" is the subject's, so every LEFT_ here is a mesh vertex of the subject's right side
/// (33, 61, 133, 234, …) and mirrored pairs swap (33 ↔ 263).
enum CloudVisionLandmark: String, CaseIterable {
  case leftEye = "LEFT_EYE"
  case rightEye = "RIGHT_EYE"
  case leftOfLeftEyebrow = "LEFT_OF_LEFT_EYEBROW"
  case rightOfLeftEyebrow = "RIGHT_OF_LEFT_EYEBROW"
  case leftOfRightEyebrow = "LEFT_OF_RIGHT_EYEBROW"
  case rightOfRightEyebrow = "RIGHT_OF_RIGHT_EYEBROW"
  case midpointBetweenEyes = "MIDPOINT_BETWEEN_EYES"
  case noseTip = "NOSE_TIP"
  case upperLip = "UPPER_LIP"
  case lowerLip = "LOWER_LIP"
  case mouthLeft = "MOUTH_LEFT"
  case mouthRight = "MOUTH_RIGHT"
  case mouthCenter = "MOUTH_CENTER"
  case noseBottomRight = "NOSE_BOTTOM_RIGHT"
  case noseBottomLeft = "NOSE_BOTTOM_LEFT"
  case noseBottomCenter = "NOSE_BOTTOM_CENTER"
  case leftEyeTopBoundary = "LEFT_EYE_TOP_BOUNDARY"
  case leftEyeRightCorner = "LEFT_EYE_RIGHT_CORNER"
  case leftEyeBottomBoundary = "LEFT_EYE_BOTTOM_BOUNDARY"
  case leftEyeLeftCorner = "LEFT_EYE_LEFT_CORNER"
  case rightEyeTopBoundary = "RIGHT_EYE_TOP_BOUNDARY"
  case rightEyeRightCorner = "RIGHT_EYE_RIGHT_CORNER"
  case rightEyeBottomBoundary = "RIGHT_EYE_BOTTOM_BOUNDARY"
  case rightEyeLeftCorner = "RIGHT_EYE_LEFT_CORNER"
  case leftEyebrowUpperMidpoint = "LEFT_EYEBROW_UPPER_MIDPOINT"
  case rightEyebrowUpperMidpoint = "RIGHT_EYEBROW_UPPER_MIDPOINT"
  case leftEarTragion = "LEFT_EAR_TRAGION"
  case rightEarTragion = "RIGHT_EAR_TRAGION"
  case leftEyePupil = "LEFT_EYE_PUPIL"
  case rightEyePupil = "RIGHT_EYE_PUPIL"
  case foreheadGlabella = "FOREHEAD_GLABELLA"
  case chinGnathion = "CHIN_GNATHION"
  case chinLeftGonion = "CHIN_LEFT_GONION"
  case chinRightGonion = "CHIN_RIGHT_GONION"
  case leftCheekCenter = "LEFT_CHEEK_CENTER"
  case rightCheekCenter = "RIGHT_CHEEK_CENTER"

  /// The ML Kit landmark this one is, when it is one: the eye centres are the centres of the
  /// eye openings, as `FaceAnalyzer` computes them.
  var mlKitLandmark: FaceLandmarkType? {
    switch self {
    case .leftEye: .rightEye
    case .rightEye: .leftEye
    default: nil
    }
  }

  /// The mesh vertices averaged for this landmark (one where it is a vertex).
  var meshIndices: [Int] {
    switch self {
    // The eye openings' vertices, should the ML Kit landmark be missing.
    case .leftEye: [33, 246, 161, 160, 159, 158, 157, 173, 133, 155, 154, 153, 145, 144, 163, 7]
    case .rightEye: [362, 398, 384, 385, 386, 387, 388, 466, 263, 249, 390, 373, 374, 380, 381, 382]
    // Brow ends: the upper and lower edges' end vertices.
    case .leftOfLeftEyebrow: [70, 46]
    case .rightOfLeftEyebrow: [107, 55]
    case .leftOfRightEyebrow: [336, 285]
    case .rightOfRightEyebrow: [300, 276]
    case .midpointBetweenEyes: [168]
    case .noseTip: [1]
    // A lip's centre: midway between its outer and inner edges at the middle.
    case .upperLip: [0, 13]
    case .lowerLip: [14, 17]
    case .mouthLeft: [61]
    case .mouthRight: [291]
    case .mouthCenter: [13, 14]
    case .noseBottomRight: [327]
    case .noseBottomLeft: [98]
    case .noseBottomCenter: [2]
    // Eye boundaries: the lids' middle vertices; corners: outer 33 and 263, inner 133 and 362.
    case .leftEyeTopBoundary: [159]
    case .leftEyeRightCorner: [133]
    case .leftEyeBottomBoundary: [145]
    case .leftEyeLeftCorner: [33]
    case .rightEyeTopBoundary: [386]
    case .rightEyeRightCorner: [263]
    case .rightEyeBottomBoundary: [374]
    case .rightEyeLeftCorner: [362]
    case .leftEyebrowUpperMidpoint: [105]
    case .rightEyebrowUpperMidpoint: [334]
    // The mesh has no ears: where the face meets each, as ML Kit's ear landmarks.
    case .leftEarTragion: [234]
    case .rightEarTragion: [454]
    // The iris centres.
    case .leftEyePupil: [468]
    case .rightEyePupil: [473]
    // Between the brows, above the nose bridge.
    case .foreheadGlabella: [9]
    case .chinGnathion: [152]
    // The jaw's angles on the face oval.
    case .chinLeftGonion: [172]
    case .chinRightGonion: [397]
    case .leftCheekCenter: [50]
    case .rightCheekCenter: [280]
    }
  }
}
