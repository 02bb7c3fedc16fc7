import Foundation
import Testing
import Visage

/// The options classes' `copy()`, which every task takes when it is made: each lists its
/// fields by hand, so these tests set every field away from its default, copy, and compare
/// field by field through reflection, and count the fields, so that a field added later and
/// left out of `copy()` fails here instead of quietly taking its default in every task.
@Suite struct OptionsCopyTests {
  final class Receiver: FaceDetectorLiveStreamDelegate, FaceLandmarkerLiveStreamDelegate {
    func faceDetector(
      _: FaceDetector, didFinishDetection _: FaceDetectorResult?, timestampInMilliseconds _: Int, error _: Error?
    ) {}
    func faceLandmarker(
      _: FaceLandmarker, didFinishDetection _: FaceLandmarkerResult?, timestampInMilliseconds _: Int, error _: Error?
    ) {}
  }

  /// Every stored field's label and value, as text (classes by their own fields), and how
  /// many there are.
  static func fields(_ value: Any) -> [String: String] {
    var fields: [String: String] = [:]
    for child in Mirror(reflecting: value).children {
      guard let label = child.label else { continue }
      if let base = child.value as? BaseOptions {
        for (key, text) in Self.fields(base) { fields["baseOptions." + key] = text }
      } else if let handler = child.value as? Any?, case .some(let closure) = handler,
        String(describing: type(of: closure)).contains("->")
      {
        fields[label] = "a closure"  // closures have no identity to compare; present or not
      } else {
        fields[label] = String(describing: child.value)
      }
    }
    return fields
  }

  static func expectCopied(_ original: Any, _ copy: Any, fieldCount: Int) {
    let (a, b) = (fields(original), fields(copy))
    #expect(a == b)
    #expect(
      Mirror(reflecting: original).children.count == fieldCount, "a field was added: copy() it, then count it here")
  }

  @Test func detectorOptionsCopyEveryField() {
    let receiver = Receiver()
    let options = FaceDetectorOptions(
      baseOptions: BaseOptions(modelAssetPath: "a.task", threadCount: 3, maximumSearchRuns: 99),
      runningMode: .liveStream, minDetectionConfidence: 0.7, minSuppressionThreshold: 0.2)
    options.faceDetectorLiveStreamDelegate = receiver
    options.liveStreamHandler = { _, _, _ in }
    options.searchesAllScales = true
    options.fullRangeDetectorModelAssetPath = "full.tflite"
    options.searchesAnyRotation = true
    options.minFacePresenceConfidence = 0.6
    options.landmarksModelAssetPath = "landmarks.tflite"
    options.isTrackingEnabled = true
    Self.expectCopied(options, options.copy(), fieldCount: 12)
    #expect(options.copy().baseOptions !== options.baseOptions)
  }

  @Test func landmarkerOptionsCopyEveryField() {
    let receiver = Receiver()
    let options = FaceLandmarkerOptions(
      baseOptions: BaseOptions(modelAssetPath: "a.task", threadCount: 3), runningMode: .liveStream, numFaces: 3,
      minFaceDetectionConfidence: 0.6, minFacePresenceConfidence: 0.7, minTrackingConfidence: 0.8,
      outputFaceBlendshapes: true, outputFacialTransformationMatrixes: true)
    options.faceLandmarkerLiveStreamDelegate = receiver
    options.liveStreamHandler = { _, _, _ in }
    options.faceDetectorModelAssetPath = "detector.tflite"
    options.landmarkSmoothing = .mediaPipe
    options.searchesAllScales = true
    options.fullRangeDetectorModelAssetPath = "full.tflite"
    options.searchesAnyRotation = true
    options.outputFaceHeadPoses = true
    options.outputFaceMetricLandmarks = true
    options.outputFaceIrisDistances = true
    options.outputFaceScores = true
    options.isTrackingEnabled = true
    options.cameraVerticalFieldOfView = 50
    options.usesImageFocalLength = true
    options.landmarkFilter = LandmarkFilterParameters(frequency: 60, minCutoff: 0.5, beta: 10, derivativeCutoff: 2)
    Self.expectCopied(options, options.copy(), fieldCount: 23)
    #expect(options.copy().baseOptions !== options.baseOptions)
  }

  @Test func analyzerOptionsCopyEveryField() {
    let options = FaceAnalyzerOptions(
      baseOptions: BaseOptions(modelAssetPath: "a.task", threadCount: 3), runningMode: .video,
      performanceMode: .accurate, landmarkMode: .all, contourMode: .all, classificationMode: .all, minFaceSize: 0.3,
      isTrackingEnabled: true)
    options.fullRangeDetectorModelAssetPath = "full.tflite"
    options.searchesAnyRotation = true
    options.maximumFaceCount = 4
    Self.expectCopied(options, options.copy(), fieldCount: 11)
  }

  @Test func baseOptionsCopyEveryField() {
    let options = BaseOptions(modelAssetPath: "a.task", threadCount: 5, maximumSearchRuns: 1_234)
    Self.expectCopied(options, options.copy(), fieldCount: 3)
  }
}
