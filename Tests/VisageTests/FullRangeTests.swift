import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTestSupport

/// Beyond MediaPipe's Tasks detector: in a group photo where faces are about 1/12 of the
/// image width, the short-range model finds nobody and the full-range model finds everyone.
@Suite(.enabled(if: !DetectorFixtures.groupPhoto.faces.isEmpty, "no group photo fixture"))
struct FullRangeTests {
  static let fullRangePath = Fixtures.weightsPath("face_detection_full_range.tflite")

  @Test func fullRangeFindsEveryFaceInTheGroupPhoto() throws {
    let (path, truth) = DetectorFixtures.groupPhoto
    let image = try VisionImage(contentsOfFile: Fixtures.fixturePath(path))
    let detector = try FaceDetector(modelPath: Self.fullRangePath)
    #expect(detector.isFullRange)
    let found = try detector.detect(image: image).detections
    #expect(found.count == truth.count, "found \(found.count) faces, the photo has \(truth.count)")
    for face in truth {
      let best = found.map { iou($0.boundingBox, face) }.max() ?? 0
      #expect(best >= 0.5, "face at \(face) matched with IoU \(best)")
    }
  }

  @Test func shortRangeFindsNobodyInTheGroupPhoto() throws {
    let image = try VisionImage(contentsOfFile: Fixtures.fixturePath(DetectorFixtures.groupPhoto.image))
    let detector = try FaceDetector(modelPath: BundledModel.taskBundlePath)
    #expect(!detector.isFullRange)
    #expect(try detector.detect(image: image).detections.isEmpty)
  }

  @Test func fullRangeFindsTheAstronaut() throws {
    let image = try VisionImage(contentsOfFile: Fixtures.fixturePath("images/astronaut.png"))
    let found = try FaceDetector(modelPath: Self.fullRangePath).detect(image: image).detections
    #expect(found.count == 1)
    // MediaPipe's short-range box for the same face is (177, 82, 95, 95).
    #expect(iou(try #require(found.first).boundingBox, [177, 82, 95, 95]) > 0.6)
  }

  private func iou(_ box: CGRect, _ truth: [Int]) -> Double {
    let t = (x0: Double(truth[0]), y0: Double(truth[1]), x1: Double(truth[0] + truth[2]), y1: Double(truth[1] + truth[3]))
    let iw = max(0, min(box.maxX, t.x1) - max(box.minX, t.x0))
    let ih = max(0, min(box.maxY, t.y1) - max(box.minY, t.y0))
    let union = box.width * box.height + Double(truth[2] * truth[3]) - iw * ih
    return union > 0 ? iw * ih / union : 0
  }
}
