import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTestSupport

// The MediaPipe Face Landmarker guide for iOS, call by call, in its order and with its
// names: options made with `FaceLandmarkerOptions()` in a `let` and then set, the model path
// from `Bundle.main.path(forResource:ofType:)` assigned as it comes (an optional), each running
// mode's create and detect calls, and a delegate declared as the guide declares it. These
// lines compile in Swift 6 (this target) and Swift 5 (GuideCodeSwift5Tests, the same files).
// Only the image differs: a file where the guide has a `UIImage` (which Linux lacks).

/// The guide's live-stream delegate shape: a plain NSObject subclass, not `Sendable`.
class FaceLandmarkerResultProcessor: NSObject, FaceLandmarkerLiveStreamDelegate {
  private let lock = NSLock()
  private var results: [(Int, FaceLandmarkerResult?, Error?)] = []

  func faceLandmarker(
    _ faceLandmarker: FaceLandmarker,
    didFinishDetection result: FaceLandmarkerResult?,
    timestampInMilliseconds: Int,
    error: Error?
  ) {
    lock.lock()
    results.append((timestampInMilliseconds, result, error))
    lock.unlock()
  }

  var received: [(Int, FaceLandmarkerResult?, Error?)] {
    lock.lock()
    defer { lock.unlock() }
    return results
  }
}

@Suite struct FaceLandmarkerGuideTests {
  // The guide's option values come from the app's settings.
  let minFaceDetectionConfidence: Float = 0.5
  let minFacePresenceConfidence: Float = 0.5
  let minTrackingConfidence: Float = 0.5
  let numFaces = 1

  init() { GuideModels.place() }

  /// A picture the way an app has one; the guide makes it from a `UIImage`.
  func picture() throws -> MPImage {
    try MPImage(contentsOfFile: Fixtures.fixturePath("images/astronaut.png"))
  }

  /// What the guide says a result holds: 478 landmarks per face; 52 blendshapes and a 4×4
  /// matrix when asked for.
  func expectDescribed(_ result: FaceLandmarkerResult, blendshapes: Bool) {
    #expect(result.faceLandmarks.count == 1)
    #expect(result.faceLandmarks.first?.count == 478)
    if blendshapes {
      #expect(result.faceBlendshapes.first?.categories.count == 52)
      #expect(result.faceBlendshapes.first?.categories.first { $0.categoryName == "eyeBlinkLeft" } != nil)
      #expect(result.facialTransformationMatrixes.count == 1)
    }
  }

  @Test func imageMode() throws {
    let modelPath = Bundle.main.path(
      forResource: "face_landmarker",
      ofType: "task")

    let options = FaceLandmarkerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .image
    options.minFaceDetectionConfidence = minFaceDetectionConfidence
    options.minFacePresenceConfidence = minFacePresenceConfidence
    options.minTrackingConfidence = minTrackingConfidence
    options.numFaces = numFaces
    options.outputFaceBlendshapes = true
    options.outputFacialTransformationMatrixes = true

    let faceLandmarker = try FaceLandmarker(options: options)

    let image = try picture()
    let result = try faceLandmarker.detect(image: image)
    expectDescribed(result, blendshapes: true)
  }

  @Test func videoMode() throws {
    let modelPath = Bundle.main.path(
      forResource: "face_landmarker",
      ofType: "task")

    let options = FaceLandmarkerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .video
    options.minFaceDetectionConfidence = minFaceDetectionConfidence
    options.minFacePresenceConfidence = minFacePresenceConfidence
    options.minTrackingConfidence = minTrackingConfidence
    options.numFaces = numFaces

    let faceLandmarker = try FaceLandmarker(options: options)

    let image = try picture()
    for timestamp in [0, 33, 67] {
      let result = try faceLandmarker.detect(
        videoFrame: image,
        timestampInMilliseconds: timestamp)
      expectDescribed(result, blendshapes: false)
    }
    // A method of another mode is refused, as the guide says.
    #expect(throws: VisionTaskError.self) { try faceLandmarker.detect(image: image) }
  }

  @Test func liveStreamMode() throws {
    let modelPath = Bundle.main.path(
      forResource: "face_landmarker",
      ofType: "task")

    let options = FaceLandmarkerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .liveStream
    options.minFaceDetectionConfidence = minFaceDetectionConfidence
    options.minFacePresenceConfidence = minFacePresenceConfidence
    options.minTrackingConfidence = minTrackingConfidence
    options.numFaces = numFaces

    let processor = FaceLandmarkerResultProcessor()
    options.faceLandmarkerLiveStreamDelegate = processor

    let faceLandmarker = try FaceLandmarker(options: options)

    let image = try picture()
    let timestamp = 0
    try faceLandmarker.detectAsync(
      image: image,
      timestampInMilliseconds: timestamp)

    faceLandmarker.waitUntilIdle()
    let received = processor.received
    #expect(received.count == 1)
    #expect(received.first?.0 == 0 && received.first?.2 == nil)
    if let result = received.first?.1 { expectDescribed(result, blendshapes: false) }
  }

  @Test func optionsChangedAfterwardsDoNotReachTheTask() throws {
    let options = FaceLandmarkerOptions()
    options.baseOptions.modelAssetPath = Bundle.main.path(forResource: "face_landmarker", ofType: "task")
    let faceLandmarker = try FaceLandmarker(options: options)
    options.runningMode = .video
    options.numFaces = 0
    options.baseOptions.modelAssetPath = nil
    #expect(options.baseOptions.modelAssetPath == "")
    let result = try faceLandmarker.detect(image: picture())
    #expect(result.faceLandmarks.count == 1)
    #expect(faceLandmarker.options.runningMode == .image && faceLandmarker.options.numFaces == 1)
    // What the task reports is a copy too.
    faceLandmarker.options.numFaces = 5
    #expect(faceLandmarker.options.numFaces == 1)
  }
}
