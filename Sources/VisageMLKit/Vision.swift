import Foundation

/// Firebase ML Kit's entry point: `Vision.vision().faceDetector(options:)`.
public final class Vision: Sendable {
  private static let shared = Vision()

  /// The shared instance.
  public static func vision() -> Vision { shared }

  /// A face detector with these options (copied).
  public func faceDetector(options: VisionFaceDetectorOptions) -> VisionFaceDetector {
    FaceDetector.faceDetector(options: options)
  }

  /// A face detector with the default options.
  public func faceDetector() -> VisionFaceDetector {
    FaceDetector.faceDetector()
  }
}

/// Firebase ML Kit's name for `FaceDetector`.
public typealias VisionFaceDetector = FaceDetector
/// Firebase ML Kit's name for `FaceDetectorOptions`.
public typealias VisionFaceDetectorOptions = FaceDetectorOptions
/// Firebase ML Kit's name for `Face`.
public typealias VisionFace = Face
/// Firebase ML Kit's name for `FaceLandmark`.
public typealias VisionFaceLandmark = FaceLandmark
/// Firebase ML Kit's name for `FaceContour`.
public typealias VisionFaceContour = FaceContour
/// Firebase ML Kit's name for `FaceDetectorPerformanceMode`.
public typealias VisionFaceDetectorPerformanceMode = FaceDetectorPerformanceMode
/// Firebase ML Kit's name for `FaceDetectorLandmarkMode`.
public typealias VisionFaceDetectorLandmarkMode = FaceDetectorLandmarkMode
/// Firebase ML Kit's name for `FaceDetectorContourMode`.
public typealias VisionFaceDetectorContourMode = FaceDetectorContourMode
/// Firebase ML Kit's name for `FaceDetectorClassificationMode`.
public typealias VisionFaceDetectorClassificationMode = FaceDetectorClassificationMode
/// Firebase ML Kit's name for `FaceLandmarkType`.
public typealias VisionFaceLandmarkType = FaceLandmarkType
/// Firebase ML Kit's name for `FaceContourType`.
public typealias VisionFaceContourType = FaceContourType
