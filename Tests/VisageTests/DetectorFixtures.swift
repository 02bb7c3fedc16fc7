import Foundation
import Visage
import VisageImageIO
import VisageTestSupport

/// The MediaPipe 1.2.2 results in Tests/Fixtures/detector/mediapipe.json, written by
/// Tools/make_detector_fixtures.py.
enum DetectorFixtures {
  struct Face: Sendable {
    var box: [Int]  // originX, originY, width, height
    var score: Float
    var keypoints: [SIMD2<Double>]
  }

  struct Case: Sendable, CustomStringConvertible {
    var name: String
    var image: String
    var rotationDegrees: Int
    var minDetectionConfidence: Float
    var minSuppressionThreshold: Float
    var runningMode: String
    var timestampMs: Int
    var faces: [Face]
    var description: String { name }

    func loadImage() throws -> MPImage {
      try MPImage(
        contentsOfFile: Fixtures.fixturePath(image), orientation: .init(mediaPipeRotation: rotationDegrees))
    }
  }

  static let path = Fixtures.fixturePath("detector/mediapipe.json")

  nonisolated(unsafe) static let json: [String: Any] = {
    guard let data = FileManager.default.contents(atPath: path),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { return [:] }
    return object
  }()

  static let cases: [Case] = ((json["cases"] as? [[String: Any]]) ?? []).map { c in
    let faces = ((c["detections"] as? [[String: Any]]) ?? []).map { d in
      let box = d["boundingBox"] as! [String: Int]
      return Face(
        box: [box["originX"]!, box["originY"]!, box["width"]!, box["height"]!],
        score: Float(d["score"] as! Double),
        keypoints: (d["keypoints"] as! [[Double]]).map { SIMD2($0[0], $0[1]) })
    }
    return Case(
      name: c["name"] as! String, image: c["image"] as! String,
      rotationDegrees: c["rotationDegrees"] as! Int,
      minDetectionConfidence: Float(c["minDetectionConfidence"] as! Double),
      minSuppressionThreshold: Float(c["minSuppressionThreshold"] as! Double),
      runningMode: c["runningMode"] as! String, timestampMs: c["timestampMs"] as? Int ?? 0, faces: faces)
  }

  /// The synthesized group photo and its ground-truth face boxes [x, y, w, h] in pixels.
  static var groupPhoto: (image: String, faces: [[Int]]) {
    let g = json["groupPhoto"] as? [String: Any] ?? [:]
    return (g["image"] as? String ?? "", g["faces"] as? [[Int]] ?? [])
  }
}

extension MPImage.Orientation {
  /// The orientation whose `rotationDegrees()` is `degrees`, as the fixture scripts pass
  /// MediaPipe's rotation_degrees (−90, −180, −270, or 0 for upright).
  init(mediaPipeRotation degrees: Int) {
    self = Self.allCases.first { (try? $0.rotationDegrees()) == degrees } ?? .up
  }
}
