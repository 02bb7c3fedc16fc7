import Foundation
import Visage
import VisageImageIO
import VisageTestSupport

/// MediaPipe 1.2.2's answers on the parity sweep (Tests/Fixtures/sweep/mediapipe.json, written
/// by Tools/make_sweep_fixtures.py): hundreds of sizes, aspect ratios, photos and orientations.
enum SweepFixtures {
  struct Detection: Sendable {
    var box: [Int]  // originX, originY, width, height
    var score: Float
    var keypoints: [Float]  // x0, y0, x1, y1, ...
  }

  struct Face: Sendable {
    var landmarks: [Float]  // x, y, z per landmark
    var blendshapes: [Float]
    var matrix: [Float]  // row-major 4×4
  }

  struct Case: Sendable, CustomStringConvertible {
    var name: String
    var photo: String
    var width: Int
    var height: Int
    var rotationDegrees: Int
    var crc32: UInt32
    var detections: [Detection]
    var fullRangeTopScore: Float
    /// MediaPipe's FaceLandmarker (image mode, 3 faces), for every other random case.
    var faces: [Face]?
    var description: String { "\(name) (\(photo) \(width)x\(height), rotation \(rotationDegrees))" }

    /// The case's pixels, rebuilt as the script built them and checked against its CRC-32.
    func image() throws -> MPImage {
      let source = try SweepFixtures.photo(photo)
      let resized = SweepImages.resize(source.pixels, width: source.width, height: source.height, to: width, height)
      let turned = SweepImages.rotate(resized, width: width, height: height, quarterTurns: rotationDegrees / 90)
      guard SweepImages.crc32(turned.rgb) == crc32 else {
        throw FixtureError.unreadable("\(self): pixels differ from the script's")
      }
      return try MPImage(
        width: turned.width, height: turned.height, rgb: turned.rgb,
        orientation: .init(mediaPipeRotation: rotationDegrees))
    }
  }

  /// One rect and OpenCV's inverse warp matrix for it, exactly.
  struct PerspectiveCase: Sendable {
    var rect: [Float]  // centre x, centre y, width, height, rotation
    var size: Int
    var inverse: [Double]
  }

  nonisolated(unsafe) static let json: [String: Any] = {
    guard let data = FileManager.default.contents(atPath: Fixtures.fixturePath("sweep/mediapipe.json")),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { return [:] }
    return object
  }()

  private static func floats(_ any: Any?) -> [Float] { ((any as? [NSNumber]) ?? []).map(\.floatValue) }

  static let cases: [Case] = ((json["cases"] as? [[String: Any]]) ?? []).map { c in
    Case(
      name: c["name"] as! String, photo: c["photo"] as! String, width: c["width"] as! Int, height: c["height"] as! Int,
      rotationDegrees: c["rotationDegrees"] as! Int, crc32: UInt32((c["crc32"] as! NSNumber).uint64Value),
      detections: (c["detections"] as! [[String: Any]]).map {
        Detection(
          box: $0["box"] as! [Int], score: ($0["score"] as! NSNumber).floatValue, keypoints: floats($0["keypoints"]))
      },
      fullRangeTopScore: (c["fullRangeTopScore"] as! NSNumber).floatValue,
      faces: (c["faces"] as? [[String: Any]])?.map {
        Face(landmarks: floats($0["landmarks"]), blendshapes: floats($0["blendshapes"]), matrix: floats($0["matrix"]))
      })
  }

  static let landmarkerCases = cases.filter { $0.faces != nil }

  static let perspectiveCases: [PerspectiveCase] = ((json["perspectiveMaps"] as? [[String: Any]]) ?? []).map { m in
    PerspectiveCase(
      rect: floats(m["rect"]), size: m["size"] as! Int, inverse: (m["inverse"] as! [String]).map { Double($0)! })
  }

  /// The decoded source photos, once.
  private static let photos: [String: Result<MPImage, Error>] = {
    let paths = (json["photos"] as? [String: [String: Any]]) ?? [:]
    return paths.mapValues { entry in
      Result { try MPImage(contentsOfFile: Fixtures.fixturePath(entry["path"] as! String)) }
    }
  }()

  static func photo(_ name: String) throws -> MPImage {
    guard let photo = photos[name] else { throw FixtureError.unreadable("no photo named \(name)") }
    return try photo.get()
  }
}
