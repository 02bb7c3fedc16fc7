import Visage

/// A task's result laid out for the C ABI: for each field, rows of 32-bit floats of one width
/// (a face's 478 landmarks as x, y, z; a detection's box), which Python reads into numpy in one
/// call per field. An output that is off has no entry; a face without a value (a head pose the
/// geometry could not give) has a row of NaN.
final class ResultTable {
  /// The fields, by the number the C ABI takes (`_native.py` names the same numbers).
  enum Field: Int32, CaseIterable {
    case landmarks = 0
    case blendshapes, matrices, headPoses, metricLandmarks, irisDistances, trackingIds, scores
    case boxes = 10
    case categories, keypoints, facePresences, detectionTrackingIds, rotations
  }

  private(set) var rows: [Field: [[Float]]] = [:]
  /// The blendshapes' category names, in score order.
  private(set) var categoryNames: [String] = []
  let timestamp: Int

  init(_ result: FaceLandmarkerResult) {
    timestamp = result.timestampInMilliseconds
    rows[.landmarks] = result.faceLandmarks.map { $0.flatMap { [$0.x, $0.y, $0.z] } }
    if !result.faceBlendshapes.isEmpty {
      rows[.blendshapes] = result.faceBlendshapes.map { $0.categories.map(\.score) }
      categoryNames = result.faceBlendshapes[0].categories.map { $0.categoryName ?? "" }
    }
    if !result.facialTransformationMatrixes.isEmpty {
      rows[.matrices] = result.facialTransformationMatrixes.map(\.rowMajor)
    }
    if !result.faceHeadPoses.isEmpty {
      rows[.headPoses] = result.faceHeadPoses.map { $0.map { [$0.x, $0.y, $0.z] } ?? Self.missing(3) }
    }
    if !result.faceMetricLandmarks.isEmpty {
      rows[.metricLandmarks] = result.faceMetricLandmarks.map {
        $0.map { $0.flatMap { [$0.x, $0.y, $0.z] } } ?? Self.missing(468 * 3)
      }
    }
    if !result.faceIrisDistances.isEmpty {
      rows[.irisDistances] = result.faceIrisDistances.map { $0.map { [$0.left, $0.right] } ?? Self.missing(2) }
    }
    if !result.faceTrackingIds.isEmpty { rows[.trackingIds] = result.faceTrackingIds.map { [Float($0)] } }
    if !result.faceScores.isEmpty {
      rows[.scores] = result.faceScores.map { [$0.detection ?? .nan, $0.presence] }
    }
  }

  init(_ result: FaceDetectorResult, imageWidth: Int, imageHeight: Int) {
    timestamp = result.timestampInMilliseconds
    let detections = result.detections
    rows[.boxes] = detections.map {
      [$0.boundingBox.minX, $0.boundingBox.minY, $0.boundingBox.width, $0.boundingBox.height].map { Float($0) }
    }
    rows[.categories] = detections.map { [Float($0.categories[0].index), $0.categories[0].score] }
    rows[.keypoints] = detections.map {
      ($0.keypoints ?? []).flatMap { [Float($0.location.x), Float($0.location.y), $0.score] }
    }
    rows[.facePresences] = detections.map { [$0.facePresence ?? .nan] }
    rows[.rotations] = detections.map {
      [$0.inPlaneRotation(imageWidth: imageWidth, imageHeight: imageHeight).map { Float($0) } ?? .nan]
    }
    if !result.faceTrackingIds.isEmpty {
      rows[.detectionTrackingIds] = result.faceTrackingIds.map { [Float($0)] }
    }
  }

  private static func missing(_ count: Int) -> [Float] { [Float](repeating: .nan, count: count) }
}
