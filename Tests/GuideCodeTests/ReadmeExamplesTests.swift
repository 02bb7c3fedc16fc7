import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTestSupport

// The Swift examples of README.md and of the DocC articles, which must compile and run: every
// ```swift block there appears, line for line (imports aside), between the markers below, and
// the tests call each example. They follow MediaPipe's iOS guides' order and names; the models
// are found in `Bundle.main` as in the guides (GuideModels puts them there).

// README examples begin
func detectFaces(inFile path: String) throws -> FaceDetectorResult {
  let modelPath = Bundle.main.path(forResource: "face_landmarker", ofType: "task")

  let options = FaceDetectorOptions()
  options.baseOptions.modelAssetPath = modelPath
  options.runningMode = .image
  options.minDetectionConfidence = 0.5

  let faceDetector = try FaceDetector(options: options)

  let image = try MPImage(contentsOfFile: path)  // orientation from the file's Exif tag
  let result = try faceDetector.detect(image: image)
  for detection in result.detections {
    print(detection.boundingBox, detection.categories[0].score, detection.keypoints?.count ?? 0)
  }
  return result
}

func landmarkFaces(inFile path: String) throws -> FaceLandmarkerResult {
  let modelPath = Bundle.main.path(forResource: "face_landmarker", ofType: "task")

  let options = FaceLandmarkerOptions()
  options.baseOptions.modelAssetPath = modelPath
  options.runningMode = .image
  options.numFaces = 2
  options.outputFaceBlendshapes = true
  options.outputFacialTransformationMatrixes = true

  let faceLandmarker = try FaceLandmarker(options: options)

  let image = try MPImage(contentsOfFile: path)
  let result = try faceLandmarker.detect(image: image)
  // result.faceLandmarks[0]: 478 points; result.faceBlendshapes[0].categories: 52 scores
  return result
}

func landmarkFaces(inFrames frames: [MPImage], framesPerSecond: Double) throws -> [FaceLandmarkerResult] {
  let options = FaceLandmarkerOptions()
  options.baseOptions.modelAssetPath = Bundle.main.path(forResource: "face_landmarker", ofType: "task")
  options.runningMode = .video

  let faceLandmarker = try FaceLandmarker(options: options)

  return try frames.enumerated().map { index, frame in
    let timestamp = Int((Double(index) * 1000 / framesPerSecond).rounded())
    return try faceLandmarker.detect(videoFrame: frame, timestampInMilliseconds: timestamp)
  }
}

class FaceLandmarkerResultPrinter: NSObject, FaceLandmarkerLiveStreamDelegate {
  func faceLandmarker(
    _ faceLandmarker: FaceLandmarker, didFinishDetection result: FaceLandmarkerResult?,
    timestampInMilliseconds: Int, error: Error?
  ) {
    print(timestampInMilliseconds, result?.faceLandmarks.count ?? 0, error.map { "\($0)" } ?? "")
  }
}

func startLiveStream(delegate: FaceLandmarkerResultPrinter) throws -> FaceLandmarker {
  let options = FaceLandmarkerOptions()
  options.baseOptions.modelAssetPath = Bundle.main.path(forResource: "face_landmarker", ofType: "task")
  options.runningMode = .liveStream
  options.faceLandmarkerLiveStreamDelegate = delegate  // weak: keep the delegate alive

  return try FaceLandmarker(options: options)
}
// Then, for each camera frame as it comes (results arrive on the delegate, in order):
// try faceLandmarker.detectAsync(image: frame, timestampInMilliseconds: timestamp)

func analyzeFaces(inFile path: String) throws -> [Face] {
  let options = FaceAnalyzerOptions()
  options.baseOptions.modelAssetPath = Bundle.main.path(forResource: "face_landmarker", ofType: "task")
  options.performanceMode = .accurate  // every scale: small, distant and close-up faces
  options.landmarkMode = .all
  options.contourMode = .all
  options.classificationMode = .all

  let faceAnalyzer = try FaceAnalyzer(options: options)

  let faces = try faceAnalyzer.analyze(image: try MPImage(contentsOfFile: path))
  for face in faces {
    print(face.frame, face.headEulerAngleY, face.smilingProbability ?? 0)
  }
  return faces
}

func poseDistanceAndCrop(inFile path: String) throws -> [MPImage] {
  let options = FaceLandmarkerOptions()
  options.baseOptions.modelAssetPath = Bundle.main.path(forResource: "face_landmarker", ofType: "task")
  options.outputFaceHeadPoses = true
  options.outputFaceIrisDistances = true

  let image = try MPImage(contentsOfFile: path)
  let result = try FaceLandmarker(options: options).detect(image: image)
  for case (let pose?, let eyes?) in zip(result.faceHeadPoses, result.faceIrisDistances) {
    print("yaw \(pose.y)°, left eye \(eyes.left) mm from the camera")
  }
  // Each face upright and centred, 112×112, as recognition models take it (ArcFace's template).
  return try result.faceLandmarks.map { try image.alignedFaceCrop(landmarks: $0) }
}
// README examples end

@Suite struct ReadmeExamplesTests {
  init() { GuideModels.place() }

  let photo = Fixtures.fixturePath("images/astronaut.png")

  @Test func detector() throws {
    let result = try detectFaces(inFile: photo)
    #expect(result.detections.count == 1)
    #expect(result.detections.first?.keypoints?.count == 6)
  }

  @Test func landmarkerImage() throws {
    let result = try landmarkFaces(inFile: photo)
    #expect(result.faceLandmarks.count == 1 && result.faceLandmarks.first?.count == 478)
    #expect(result.faceBlendshapes.first?.categories.count == 52)
    #expect(result.facialTransformationMatrixes.count == 1)
  }

  @Test func landmarkerVideo() throws {
    let frame = try MPImage(contentsOfFile: photo)
    let results = try landmarkFaces(inFrames: [frame, frame, frame], framesPerSecond: 30)
    #expect(results.map(\.timestampInMilliseconds) == [0, 33, 67])
    #expect(results.allSatisfy { $0.faceLandmarks.count == 1 })
  }

  @Test func landmarkerLiveStream() throws {
    let delegate = FaceLandmarkerResultPrinter()
    let faceLandmarker = try startLiveStream(delegate: delegate)
    try faceLandmarker.detectAsync(image: MPImage(contentsOfFile: photo), timestampInMilliseconds: 0)
    faceLandmarker.waitUntilIdle()
    #expect(faceLandmarker.options.runningMode == .liveStream)
  }

  @Test func analyzer() throws {
    let faces = try analyzeFaces(inFile: photo)
    #expect(faces.count == 1)
    #expect(faces.first?.landmarks.isEmpty == false && faces.first?.smilingProbability != nil)
  }

  @Test func beyondMediaPipe() throws {
    let crops = try poseDistanceAndCrop(inFile: photo)
    #expect(crops.count == 1 && crops.first?.width == 112)
  }

  /// Every Swift block of README.md and of the DocC articles (Visage.docc) is one of the
  /// examples above, or part of one, so they show only code that compiles and runs.
  @Test func readmeAndArticlesShowTheseExamples() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let catalog = root.appendingPathComponent("Sources/Visage/Visage.docc")
    let articles = try FileManager.default.contentsOfDirectory(atPath: catalog.path).filter { $0.hasSuffix(".md") }
      .map { catalog.appendingPathComponent($0) }
    let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    let examples = source.components(separatedBy: "// README examples begin\n")[1]
      .components(separatedBy: "// README examples end\n")[0]
    var blocks: [String] = []
    for file in [root.appendingPathComponent("README.md")] + articles {
      let text = try String(contentsOf: file, encoding: .utf8)
      blocks += text.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
    }
    #expect(blocks.count >= 10)
    for block in blocks {
      let code = block.split(separator: "\n", omittingEmptySubsequences: false)
        .filter { !$0.hasPrefix("import ") }.joined(separator: "\n")
        .trimmingCharacters(in: .whitespacesAndNewlines)
      #expect(examples.contains(code), "a Swift block not among the tested examples:\n\(code)")
    }
  }
}
