import Foundation
import Visage
import VisageImageIO
import VisageTestSupport

/// MediaPipe 1.2.2's FaceLandmarker results in Tests/Fixtures/landmarker/mediapipe.json,
/// written by Tools/make_landmarker_fixtures.py.
enum LandmarkerFixtures {
  struct Face: Sendable {
    var landmarks: [SIMD3<Float>]
    var blendshapes: [(String, Float)]
    var matrix: [[Float]]
  }

  struct Frame: Sendable {
    var image: String
    var timestampMs: Int
    var rotationDegrees: Int
    var faces: [Face]

    func loadImage() throws -> MPImage {
      try MPImage(
        contentsOfFile: Fixtures.fixturePath(image), orientation: .init(mediaPipeRotation: rotationDegrees))
    }
  }

  /// An image case (one frame) or a video sequence.
  struct Case: Sendable, CustomStringConvertible {
    var name: String
    var numFaces: Int
    var minFaceDetectionConfidence: Float
    var minFacePresenceConfidence: Float
    var minTrackingConfidence: Float
    var frames: [Frame]
    var description: String { name }

    func options(_ mode: RunningMode) -> FaceLandmarkerOptions {
      let o = FaceLandmarkerOptions(
        baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath), runningMode: mode, numFaces: numFaces,
        minFaceDetectionConfidence: minFaceDetectionConfidence, minFacePresenceConfidence: minFacePresenceConfidence,
        minTrackingConfidence: minTrackingConfidence, outputFaceBlendshapes: true,
        outputFacialTransformationMatrixes: true)
      o.landmarkSmoothing = .mediaPipe
      return o
    }
  }

  nonisolated(unsafe) static let json: [String: Any] = {
    guard let data = FileManager.default.contents(atPath: Fixtures.fixturePath("landmarker/mediapipe.json")),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { return [:] }
    return object
  }()

  private static func float(_ any: Any?) -> Float { Float((any as? NSNumber)?.doubleValue ?? .nan) }

  private static func faces(_ list: Any?) -> [Face] {
    ((list as? [[String: Any]]) ?? []).map { f in
      Face(
        landmarks: (f["landmarks"] as! [[NSNumber]]).map {
          SIMD3($0[0].floatValue, $0[1].floatValue, $0[2].floatValue)
        },
        blendshapes: (f["blendshapes"] as! [[Any]]).map { ($0[0] as! String, float($0[1])) },
        matrix: (f["transformationMatrix"] as! [[NSNumber]]).map { $0.map(\.floatValue) })
    }
  }

  private static func makeCase(_ c: [String: Any], frames: [Frame]) -> Case {
    let o = c["options"] as! [String: Any]
    return Case(
      name: c["name"] as! String, numFaces: o["numFaces"] as! Int,
      minFaceDetectionConfidence: float(o["minFaceDetectionConfidence"]),
      minFacePresenceConfidence: float(o["minFacePresenceConfidence"]),
      minTrackingConfidence: float(o["minTrackingConfidence"]), frames: frames)
  }

  static let imageCases: [Case] = ((json["cases"] as? [[String: Any]]) ?? []).map { c in
    makeCase(
      c,
      frames: [
        Frame(
          image: c["image"] as! String, timestampMs: 0, rotationDegrees: c["rotationDegrees"] as? Int ?? 0,
          faces: faces(c["faces"]))
      ])
  }

  static let sequences: [Case] = ((json["sequences"] as? [[String: Any]]) ?? []).map { s in
    makeCase(
      s,
      frames: (s["frames"] as! [[String: Any]]).map { f in
        Frame(
          image: f["image"] as! String, timestampMs: f["timestampMs"] as! Int, rotationDegrees: 0,
          faces: faces(f["faces"]))
      })
  }
}
