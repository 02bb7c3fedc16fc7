import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTestSupport

/// Beyond MediaPipe's Tasks detector: in a group photo where faces are about 1/12 of the
/// image width, the short-range model finds nobody and the full-range model finds everyone.
@Suite struct FullRangeTests {
  /// The fixture is committed; a missing one fails here rather than skipping the suite.
  @Test func fixturesArePresent() {
    #expect(!DetectorFixtures.groupPhoto.faces.isEmpty, "Tests/Fixtures/detector/mediapipe.json has no group photo")
  }

  static let fullRangePath = Fixtures.weightsPath("face_detection_full_range.tflite")

  @Test func fullRangeFindsEveryFaceInTheGroupPhoto() throws {
    let (path, truth) = DetectorFixtures.groupPhoto
    let image = try MPImage(contentsOfFile: Fixtures.fixturePath(path))
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
    let image = try MPImage(contentsOfFile: Fixtures.fixturePath(DetectorFixtures.groupPhoto.image))
    let detector = try FaceDetector(modelPath: BundledModel.taskBundlePath)
    #expect(!detector.isFullRange)
    #expect(try detector.detect(image: image).detections.isEmpty)
  }

  @Test func fullRangeFindsTheAstronaut() throws {
    let image = try MPImage(contentsOfFile: Fixtures.fixturePath("images/astronaut.png"))
    let found = try FaceDetector(modelPath: Self.fullRangePath).detect(image: image).detections
    #expect(found.count == 1)
    // MediaPipe's short-range box for the same face is (177, 82, 95, 95).
    let first = try #require(found.first)
    #expect(iou(first.boundingBox, [177, 82, 95, 95]) > 0.6)
  }

  /// With `faceDetectorModelAssetPath` set to the full-range model, the landmarker gives
  /// every face of the group photo its landmarks: each ground-truth box holds the centre of
  /// exactly one face's landmarks. With the bundle's short-range detector it finds none.
  @Test func landmarkerWithTheFullRangeDetectorFindsEveryFace() throws {
    let (path, truth) = DetectorFixtures.groupPhoto
    let image = try MPImage(contentsOfFile: Fixtures.fixturePath(path))
    let options = FaceLandmarkerOptions(baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath))
    options.numFaces = 10
    #expect(try FaceLandmarker(options: options).detect(image: image).faceLandmarks.isEmpty)
    options.faceDetectorModelAssetPath = Self.fullRangePath
    let faces = try FaceLandmarker(options: options).detect(image: image).faceLandmarks
    #expect(faces.count == truth.count)
    let centres = faces.map { face in
      (
        Double(face.map(\.x).reduce(0, +)) / 478 * Double(image.width),
        Double(face.map(\.y).reduce(0, +)) / 478 * Double(image.height)
      )
    }
    for box in truth {
      let inside = centres.filter { c in
        c.0 >= Double(box[0]) && c.0 < Double(box[0] + box[2]) && c.1 >= Double(box[1]) && c.1 < Double(box[1] + box[3])
      }
      #expect(inside.count == 1, "\(inside.count) landmark sets centred in the face at \(box)")
    }
  }

  private func iou(_ box: CGRect, _ truth: [Int]) -> Double {
    let t = (
      x0: Double(truth[0]), y0: Double(truth[1]), x1: Double(truth[0] + truth[2]), y1: Double(truth[1] + truth[3])
    )
    let iw = max(0, min(box.maxX, t.x1) - max(box.minX, t.x0))
    let ih = max(0, min(box.maxY, t.y1) - max(box.minY, t.y0))
    let union = box.width * box.height + Double(truth[2] * truth[3]) - iw * ih
    return union > 0 ? iw * ih / union : 0
  }
}
