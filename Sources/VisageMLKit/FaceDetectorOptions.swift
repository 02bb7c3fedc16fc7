import Foundation
import Visage

/// Speed or accuracy: ML Kit's `FaceDetectorPerformanceMode`.
public enum FaceDetectorPerformanceMode: Sendable, CaseIterable {
  /// The short-range detector: faces within about 2 m of the camera. The default.
  case fast
  /// Visage's all-scales search: small and distant faces too, at several times the cost.
  case accurate
}

/// Whether to find landmarks: ML Kit's `FaceDetectorLandmarkMode`.
public enum FaceDetectorLandmarkMode: Sendable, CaseIterable {
  /// No landmarks. The default.
  case none
  /// The landmarks ML Kit finds for the face's yaw (see `FaceDetectorOptions`).
  case all
}

/// Whether to trace contours: ML Kit's `FaceDetectorContourMode`.
public enum FaceDetectorContourMode: Sendable, CaseIterable {
  /// No contours. The default.
  case none
  /// The fifteen contours of the most prominent face (of every face with
  /// `contoursForEveryFace`).
  case all
}

/// Whether to classify expressions: ML Kit's `FaceDetectorClassificationMode`.
public enum FaceDetectorClassificationMode: Sendable, CaseIterable {
  /// No probabilities. The default.
  case none
  /// Smiling and eyes-open probabilities.
  case all
}

/// How a `FaceDetector` works: ML Kit's `FaceDetectorOptions`, with ML Kit's defaults.
///
/// What ML Kit does, this does by default:
/// - landmarks depend on the head's yaw (`headEulerAngleY`), as ML Kit's table gives them
///   (`landmarkTypes(forYaw:)`): a face turned far to one side shows only that side's;
/// - contours come for the most prominent (largest) face only;
/// - no Euler angles when landmarks and classification are off, contours are on and the mode is
///   fast.
/// Where Visage can give more, an option says so (`reportsEveryLandmark`,
/// `contoursForEveryFace`). A detector copies its options when it is made.
public final class FaceDetectorOptions {
  /// Fast (the default) or accurate.
  public var performanceMode: FaceDetectorPerformanceMode = .fast
  /// Landmarks or none (the default).
  public var landmarkMode: FaceDetectorLandmarkMode = .none
  /// Contours or none (the default).
  public var contourMode: FaceDetectorContourMode = .none
  /// Probabilities or none (the default).
  public var classificationMode: FaceDetectorClassificationMode = .none
  /// The narrowest face reported, as its width over the upright image's width. Default 0.1.
  public var minFaceSize: CGFloat = 0.1
  /// Give faces tracking IDs that last from image to image while they stay in view. Default
  /// false.
  public var isTrackingEnabled = false

  /// Visage: every landmark of every face, whatever its yaw (ML Kit leaves out those it
  /// considers hidden). Default false.
  public var reportsEveryLandmark = false
  /// Visage: contours for every face, not just the most prominent one. Default false.
  public var contoursForEveryFace = false
  /// Visage: the `face_landmarker.task` bundle; nil (the default) uses the one built into
  /// this module.
  public var modelPath: String?
  /// Visage: the full-range detector `.accurate` needs; nil (the default) uses the one built
  /// into this module.
  public var fullRangeModelPath: String?
  /// Visage: threads the models' work is shared over. Default 1.
  public var threadCount = 1
  /// Visage: the most faces analyzed per image. Default 10.
  public var maximumFaceCount = 10
  /// Visage: where `process(_:completion:)` calls its completion. Default the main queue, as
  /// ML Kit does; a program with no main run loop (a server) should give its own queue. A
  /// completion written in main-actor code (a view controller's) must keep the main queue:
  /// Swift takes it to run on the main actor.
  public var completionQueue: DispatchQueue = .main

  /// Options with ML Kit's defaults.
  public init() {}

  /// An independent copy.
  public func copy() -> FaceDetectorOptions {
    let copy = FaceDetectorOptions()
    (copy.performanceMode, copy.landmarkMode, copy.contourMode) = (performanceMode, landmarkMode, contourMode)
    (copy.classificationMode, copy.minFaceSize, copy.isTrackingEnabled) = (
      classificationMode, minFaceSize, isTrackingEnabled
    )
    (copy.reportsEveryLandmark, copy.contoursForEveryFace) = (reportsEveryLandmark, contoursForEveryFace)
    (copy.modelPath, copy.fullRangeModelPath) = (modelPath, fullRangeModelPath)
    (copy.threadCount, copy.maximumFaceCount, copy.completionQueue) = (threadCount, maximumFaceCount, completionQueue)
    return copy
  }

  /// Whether ML Kit reports Euler angles with these options: not when landmarks and
  /// classification are off, contours on, and the mode fast (ML Kit's face detection
  /// concepts page).
  var reportsEulerAngles: Bool {
    !(landmarkMode == .none && contourMode == .all && classificationMode == .none && performanceMode == .fast)
  }

  /// The landmarks ML Kit finds on a face of this yaw (degrees, positive toward the camera's
  /// right), from the table on ML Kit's face detection concepts page. Left and right are the
  /// subject's; a face turned far one way shows only that side.
  public static func landmarkTypes(forYaw yaw: CGFloat) -> Set<FaceLandmarkType> {
    switch yaw {
    case ..<(-36): [.leftEye, .mouthLeft, .leftEar, .noseBase, .leftCheek]
    case ..<(-12): [.mouthLeft, .noseBase, .mouthBottom, .rightEye, .leftEye, .leftCheek, .leftEar]
    case ...12: [.rightEye, .leftEye, .noseBase, .leftCheek, .rightCheek, .mouthLeft, .mouthRight, .mouthBottom]
    case ...36: [.mouthRight, .noseBase, .mouthBottom, .leftEye, .rightEye, .rightCheek, .rightEar]
    default: [.rightEye, .mouthRight, .rightEar, .noseBase, .rightCheek]
    }
  }

  /// The Visage analyzer options that compute what these options ask for.
  func analyzerOptions() throws -> FaceAnalyzerOptions {
    let bundle = try modelPath ?? BundledModels.path(of: "face_landmarker.task")
    let options = FaceAnalyzerOptions(
      baseOptions: BaseOptions(modelAssetPath: bundle, threadCount: threadCount),
      performanceMode: performanceMode == .accurate ? .accurate : .fast,
      landmarkMode: landmarkMode == .all ? .all : .none, contourMode: contourMode == .all ? .all : .none,
      classificationMode: classificationMode == .all ? .all : .none,
      minFaceSize: Float(minFaceSize), isTrackingEnabled: isTrackingEnabled)
    options.maximumFaceCount = maximumFaceCount
    if performanceMode == .accurate {
      options.fullRangeDetectorModelAssetPath =
        try fullRangeModelPath ?? BundledModels.path(of: "face_detection_full_range.tflite")
    }
    return options
  }
}
