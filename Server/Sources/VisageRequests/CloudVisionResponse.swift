import Foundation
import Visage
import VisageReports

// Cloud Vision's response messages (`BatchAnnotateImagesResponse` and what it holds, in the
// proto's field order), each built in one place from Visage's analysis.

extension CloudVision {
  /// The batch's answer: one response per image, in the requests' order.
  public struct BatchResponse: Encodable, Sendable {
    /// The images' responses.
    public let responses: [ImageResponse]

    /// The batch of these responses.
    public init(responses: [ImageResponse]) { self.responses = responses }

    /// The batch as a JSON tree.
    public var json: JSONValue {
      // Strings, whole numbers and floats (non-finite ones written as null): nothing throws.
      (try? OrderedJSONEncoder().encode(self)) ?? .null
    }
  }

  /// One image's `AnnotateImageResponse`: its faces, its `error`, or `{}` when it has no face.
  public struct ImageResponse: Encodable, Sendable {
    /// The faces, absent when there are none.
    public let faceAnnotations: [FaceAnnotation]?
    /// Why the image was not analyzed, as a `google.rpc.Status`.
    public let error: ErrorEnvelope.Detail?

    /// The image's faces, at most `maxResults`, in pixels of its upright picture.
    public init(_ faces: [AnalyzedFace], maxResults: Int, width: Int, height: Int) {
      let kept = faces.prefix(maxResults).map { FaceAnnotation($0, width: width, height: height) }
      (faceAnnotations, error) = (kept.isEmpty ? nil : kept, nil)
    }

    /// The image's error.
    public init(_ status: Status) {
      (faceAnnotations, error) = (nil, ErrorEnvelope(rpcCode: status.code, message: status.message).error)
    }
  }

  /// One face as Cloud Vision's `FaceAnnotation`.
  public struct FaceAnnotation: Encodable, Sendable {
    let boundingPoly: BoundingPoly
    let fdBoundingPoly: BoundingPoly?
    let landmarks: [Landmark]
    let rollAngle: Float
    let panAngle: Float
    let tiltAngle: Float
    let detectionConfidence: Float
    let landmarkingConfidence: Float
    let joyLikelihood: String
    // No honest source in Visage's models: UNKNOWN, written out rather than left to proto3's
    // omitted default, so that a reader sees it was considered.
    let sorrowLikelihood = "UNKNOWN"
    let angerLikelihood = "UNKNOWN"
    let surpriseLikelihood = "UNKNOWN"
    let underExposedLikelihood = "UNKNOWN"
    let blurredLikelihood = "UNKNOWN"
    let headwearLikelihood = "UNKNOWN"

    init(_ detail: AnalyzedFace, width: Int, height: Int) {
      let face = detail.face
      boundingPoly = BoundingPoly(face.frame.isFiniteBox ? face.frame : .zero, width: width, height: height)
      fdBoundingPoly = detail.detectionFrame.flatMap {
        $0.isFiniteBox ? BoundingPoly($0, width: width, height: height) : nil
      }
      landmarks = CloudVisionLandmark.allCases.map { Landmark($0, of: detail) }
      // Google's signs (docs/server.md): roll clockwise on screen, pan toward the image's
      // right, tilt up; ML Kit's Z is counter-clockwise, its Y and X agree.
      (rollAngle, panAngle, tiltAngle) = (-face.headEulerAngleZ, face.headEulerAngleY, face.headEulerAngleX)
      detectionConfidence = detail.detectionConfidence ?? 0
      landmarkingConfidence = detail.presenceConfidence
      joyLikelihood = CloudVision.likelihood(face.smilingProbability)
    }
  }

  /// A box as four integer vertices, clockwise from the top left, inside the picture.
  struct BoundingPoly: Encodable, Sendable {
    struct Vertex: Encodable, Sendable {
      let x: Int
      let y: Int
    }
    let vertices: [Vertex]

    init(_ box: CGRect, width: Int, height: Int) {
      func clamp(_ v: CGFloat, _ limit: Int) -> Int { Int(min(max(v.rounded(), 0), CGFloat(limit))) }
      let (x0, y0) = (clamp(box.minX, width), clamp(box.minY, height))
      let (x1, y1) = (clamp(box.maxX, width), clamp(box.maxY, height))
      vertices = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)].map { Vertex(x: $0.0, y: $0.1) }
    }
  }

  /// A landmark: its type's name and its position in pixels (z in the mesh's depth units).
  struct Landmark: Encodable, Sendable {
    struct Position: Encodable, Sendable {
      let x: Double
      let y: Double
      let z: Double
    }
    let type: String
    let position: Position

    /// ML Kit's point where the type has one, else the mean of its mesh vertices.
    init(_ type: CloudVisionLandmark, of detail: AnalyzedFace) {
      let (x, y, z): (CGFloat, CGFloat, CGFloat)
      if let mlKit = type.mlKitLandmark, let point = detail.face.landmark(ofType: mlKit) {
        (x, y, z) = (point.position.x, point.position.y, point.depth)
      } else {
        let indices = type.meshIndices
        let n = CGFloat(indices.count)
        x = indices.reduce(0) { $0 + detail.mesh[$1].x } / n
        y = indices.reduce(0) { $0 + detail.mesh[$1].y } / n
        z = indices.reduce(0) { $0 + detail.meshDepths[$1] } / n
      }
      self.type = type.rawValue
      position = Position(x: Double(x), y: Double(y), z: Double(z))
    }
  }
}

extension CGRect {
  /// Whether every edge is a finite number (a box a polygon can be made of).
  fileprivate var isFiniteBox: Bool { [minX, minY, maxX, maxY].allSatisfy(\.isFinite) }
}
