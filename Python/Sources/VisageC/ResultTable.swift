import CVisage
import Visage

extension visage_field {
  static let landmarks = VISAGE_FIELD_LANDMARKS
  static let blendshapes = VISAGE_FIELD_BLENDSHAPES
  static let matrices = VISAGE_FIELD_MATRICES
  static let headPoses = VISAGE_FIELD_HEAD_POSES
  static let metricLandmarks = VISAGE_FIELD_METRIC_LANDMARKS
  static let irisDistances = VISAGE_FIELD_IRIS_DISTANCES
  static let trackingIds = VISAGE_FIELD_TRACKING_IDS
  static let scores = VISAGE_FIELD_SCORES
  static let boxes = VISAGE_FIELD_BOXES
  static let categories = VISAGE_FIELD_CATEGORIES
  static let keypoints = VISAGE_FIELD_KEYPOINTS
  static let facePresences = VISAGE_FIELD_FACE_PRESENCES
  static let detectionTrackingIds = VISAGE_FIELD_DETECTION_TRACKING_IDS
  static let rotations = VISAGE_FIELD_ROTATIONS
}

/// A task's result laid out for the C ABI: for each field, rows of 32-bit floats of one width
/// (a face's 478 landmarks as x, y, z; a detection's box) in one block of memory, which Python
/// reads into numpy with one call per field. An output that is off has no entry; a face without
/// a value (a head pose the geometry could not give) has a row of NaN.
final class ResultTable {
  /// The fields, as the C interface numbers them (`visage_field` in visage.h).
  typealias Field = visage_field

  /// One field's rows, one after another, in memory that stays put while the table lives.
  final class Block {
    let rows: Int
    let width: Int
    let values: UnsafeMutableBufferPointer<Float>

    init(_ rows: [[Float]]) {
      self.rows = rows.count
      width = rows.map(\.count).max() ?? 0
      values = .allocate(capacity: max(self.rows * width, 1))
      var offset = 0
      for row in rows {
        _ = values[offset...].initialize(fromContentsOf: row)
        values[(offset + row.count)..<(offset + width)].initialize(repeating: .nan)
        offset += width
      }
    }

    deinit { values.deallocate() }
  }

  private(set) var blocks: [Field: Block] = [:]
  /// The first face's blendshapes, whose category names Python asks for once.
  private var firstBlendshapes: Classifications?
  /// The blendshapes' category names, in score order.
  var categoryNames: [String] { firstBlendshapes?.categories.map { $0.categoryName ?? "" } ?? [] }
  let timestamp: Int
  /// How long the engine took to compute the result, table excluded (zero for live streams).
  var engineTime: Duration = .zero

  init(_ result: FaceLandmarkerResult) {
    timestamp = result.timestampInMilliseconds
    blocks[.landmarks] = Block(result.faceLandmarks.map { Self.xyz($0) { ($0.x, $0.y, $0.z) } })
    if !result.faceBlendshapes.isEmpty {
      blocks[.blendshapes] = Block(result.faceBlendshapes.map { $0.categories.map(\.score) })
      firstBlendshapes = result.faceBlendshapes[0]
    }
    if !result.facialTransformationMatrixes.isEmpty {
      blocks[.matrices] = Block(result.facialTransformationMatrixes.map(\.rowMajor))
    }
    if !result.faceHeadPoses.isEmpty {
      blocks[.headPoses] = Block(result.faceHeadPoses.map { $0.map { [$0.x, $0.y, $0.z] } ?? Self.missing(3) })
    }
    if !result.faceMetricLandmarks.isEmpty {
      blocks[.metricLandmarks] = Block(
        result.faceMetricLandmarks.map {
          $0.map { Self.xyz($0) { ($0.x, $0.y, $0.z) } } ?? Self.missing(468 * 3)
        })
    }
    if !result.faceIrisDistances.isEmpty {
      blocks[.irisDistances] = Block(
        result.faceIrisDistances.map { $0.map { [$0.left, $0.right] } ?? Self.missing(2) })
    }
    if !result.faceTrackingIds.isEmpty { blocks[.trackingIds] = Block(result.faceTrackingIds.map { [Float($0)] }) }
    if !result.faceScores.isEmpty {
      blocks[.scores] = Block(result.faceScores.map { [$0.detection ?? .nan, $0.presence] })
    }
  }

  init(_ result: FaceDetectorResult, imageWidth: Int, imageHeight: Int) {
    timestamp = result.timestampInMilliseconds
    let detections = result.detections
    blocks[.boxes] = Block(
      detections.map {
        [$0.boundingBox.minX, $0.boundingBox.minY, $0.boundingBox.width, $0.boundingBox.height].map { Float($0) }
      })
    blocks[.categories] = Block(detections.map { [Float($0.categories[0].index), $0.categories[0].score] })
    blocks[.keypoints] = Block(
      detections.map {
        ($0.keypoints ?? []).flatMap { [Float($0.location.x), Float($0.location.y), $0.score] }
      })
    blocks[.facePresences] = Block(detections.map { [$0.facePresence ?? .nan] })
    blocks[.rotations] = Block(
      detections.map {
        [$0.inPlaneRotation(imageWidth: imageWidth, imageHeight: imageHeight).map { Float($0) } ?? .nan]
      })
    if !result.faceTrackingIds.isEmpty {
      blocks[.detectionTrackingIds] = Block(result.faceTrackingIds.map { [Float($0)] })
    }
  }

  /// Points as one row of x, y, z: a face's 478 landmarks in a single array.
  private static func xyz<Point>(_ points: [Point], _ coordinates: (Point) -> (Float, Float, Float)) -> [Float] {
    var row: [Float] = []
    row.reserveCapacity(3 * points.count)
    for point in points {
      let (x, y, z) = coordinates(point)
      row.append(x)
      row.append(y)
      row.append(z)
    }
    return row
  }

  private static func missing(_ count: Int) -> [Float] { [Float](repeating: .nan, count: count) }
}
