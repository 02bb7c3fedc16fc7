import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTestSupport

/// FaceDetector against MediaPipe 1.2.2's FaceDetector on the committed images: the same
/// number of faces, identical box edges, scores and normalized keypoints within 1e-6 (the
/// sweep in `SweepParityTests` holds the same bars on hundreds of sizes).
@Suite struct DetectorParityTests {
  /// The fixture is committed; a missing one fails here rather than skipping the suite.
  @Test func fixturesArePresent() {
    #expect(!Self.imageCases.isEmpty, "Tests/Fixtures/detector/mediapipe.json is missing or empty")
  }

  static let imageCases = DetectorFixtures.cases.filter { $0.runningMode == "IMAGE" }

  @Test(arguments: imageCases)
  func matchesMediaPipe(_ fixture: DetectorFixtures.Case) throws {
    let detector = try FaceDetector(
      options: FaceDetectorOptions(
        baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath),
        minDetectionConfidence: fixture.minDetectionConfidence,
        minSuppressionThreshold: fixture.minSuppressionThreshold))
    let result = try detector.detect(image: fixture.loadImage())
    Self.compare(result, fixture)
  }

  @Test func videoModeMatchesMediaPipe() throws {
    let frames = DetectorFixtures.cases.filter { $0.runningMode == "VIDEO" }
    try #require(!frames.isEmpty)
    let detector = try FaceDetector(
      options: FaceDetectorOptions(
        baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath), runningMode: .video))
    for frame in frames {
      let result = try detector.detect(videoFrame: frame.loadImage(), timestampInMilliseconds: frame.timestampMs)
      #expect(result.timestampInMilliseconds == frame.timestampMs)
      Self.compare(result, frame)
    }
  }

  static func compare(_ result: FaceDetectorResult, _ fixture: DetectorFixtures.Case) {
    #expect(result.detections.count == fixture.faces.count, "\(fixture): face count")
    for (ours, theirs) in zip(result.detections, fixture.faces) {
      let b = ours.boundingBox
      let edges = [Int(b.minX), Int(b.minY), Int(b.maxX), Int(b.maxY)]
      let expected = [
        theirs.box[0], theirs.box[1], theirs.box[0] + theirs.box[2], theirs.box[1] + theirs.box[3],
      ]
      let edgeError = zip(edges, expected).map { abs($0 - $1) }.max()!
      #expect(edgeError == 0, "\(fixture): box \(edges) vs \(expected)")
      #expect(
        abs(ours.categories[0].score - theirs.score) <= 1e-6,
        "\(fixture): score \(ours.categories[0].score) vs \(theirs.score)")
      let keypoints = ours.keypoints ?? []
      #expect(keypoints.count == 6)
      let keypointError =
        zip(keypoints, theirs.keypoints).map { k, e in
          max(abs(Double(k.location.x) - e.x), abs(Double(k.location.y) - e.y))
        }.max() ?? .infinity
      #expect(keypointError <= 1e-6, "\(fixture): keypoints off by \(keypointError)")
    }
  }
}

extension DetectorParityTests {
  /// The largest differences over every image case, printed for docs/parity.md's parity table.
  @Test func worstCaseDifferences() throws {
    var score: Float = 0
    var keypoint = 0.0
    var edge = 0
    var exactBoxes = 0
    var boxes = 0
    for fixture in Self.imageCases {
      let detector = try FaceDetector(
        options: FaceDetectorOptions(
          baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath),
          minDetectionConfidence: fixture.minDetectionConfidence,
          minSuppressionThreshold: fixture.minSuppressionThreshold))
      let result = try detector.detect(image: fixture.loadImage())
      for (ours, theirs) in zip(result.detections, fixture.faces) {
        score = max(score, abs(ours.categories[0].score - theirs.score))
        for (k, e) in zip(ours.keypoints ?? [], theirs.keypoints) {
          keypoint = max(keypoint, abs(Double(k.location.x) - e.x), abs(Double(k.location.y) - e.y))
        }
        let b = ours.boundingBox
        let d = [
          Int(b.minX) - theirs.box[0], Int(b.minY) - theirs.box[1], Int(b.width) - theirs.box[2],
          Int(b.height) - theirs.box[3],
        ].map(abs).max()!
        edge = max(edge, d)
        boxes += 1
        if d == 0 { exactBoxes += 1 }
      }
    }
    print(
      "detector parity over \(Self.imageCases.count) images: max score diff \(score), max keypoint diff \(keypoint), max box diff \(edge) px, \(exactBoxes)/\(boxes) boxes identical"
    )
    #expect(score <= 1e-3 && keypoint <= 1e-3 && edge <= 1)
  }
}
