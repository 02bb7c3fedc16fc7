import Foundation
import Visage

/// A task's options as the Python side sends them: JSON with the Python option names
/// (`num_faces`, `output_face_blendshapes`, ...). An option left out keeps the engine's default,
/// so that each default is written once, in the Swift library. Unknown names are refused.
struct TaskConfiguration: Decodable {
  enum Kind: String, Decodable {
    case faceLandmarker = "face_landmarker"
    case faceDetector = "face_detector"
  }
  enum Mode: String, Decodable {
    case image = "IMAGE"
    case video = "VIDEO"
    case liveStream = "LIVE_STREAM"
    var runningMode: RunningMode {
      switch self {
      case .image: .image
      case .video: .video
      case .liveStream: .liveStream
      }
    }
  }
  /// Which detector finds new faces: the bundle's short-range one, the full-range one, or both
  /// at every scale (`--detector-range` of the command line).
  enum DetectorRange: String, Decodable { case short, full, all }
  enum Smoothing: String, Decodable {
    case mediapipe
    case everyFace = "every_face"
    case off
    var value: LandmarkSmoothing {
      switch self {
      case .mediapipe: .mediaPipe
      case .everyFace: .everyFace
      case .off: .off
      }
    }
  }

  var task: Kind
  var modelAssetPath: String
  /// The bundled full-range detector, for `detector_range` full and all.
  var fullRangeModelPath: String
  var runningMode: Mode
  var threadCount: Int?
  var detectorRange: DetectorRange?
  var searchAnyRotation: Bool?
  var trackFaces: Bool?
  var minFacePresenceConfidence: Float?
  // The landmarker's.
  var numFaces: Int?
  var minFaceDetectionConfidence: Float?
  var minTrackingConfidence: Float?
  var outputFaceBlendshapes: Bool?
  var outputFacialTransformationMatrixes: Bool?
  var outputHeadPoses: Bool?
  var outputMetricLandmarks: Bool?
  var outputIrisDistances: Bool?
  var outputScores: Bool?
  var landmarkSmoothing: Smoothing?
  // The detector's.
  var minDetectionConfidence: Float?
  var minSuppressionThreshold: Float?
  var landmarksModelPath: String?

  private enum CodingKeys: String, CodingKey {
    case task
    case runningMode = "running_mode"
    case modelAssetPath = "model_asset_path"
    case fullRangeModelPath = "full_range_model_path"
    case threadCount = "thread_count"
    case detectorRange = "detector_range"
    case searchAnyRotation = "search_any_rotation"
    case trackFaces = "track_faces"
    case minFacePresenceConfidence = "min_face_presence_confidence"
    case numFaces = "num_faces"
    case minFaceDetectionConfidence = "min_face_detection_confidence"
    case minTrackingConfidence = "min_tracking_confidence"
    case outputFaceBlendshapes = "output_face_blendshapes"
    case outputFacialTransformationMatrixes = "output_facial_transformation_matrixes"
    case outputHeadPoses = "output_head_poses"
    case outputMetricLandmarks = "output_metric_landmarks"
    case outputIrisDistances = "output_iris_distances"
    case outputScores = "output_scores"
    case landmarkSmoothing = "landmark_smoothing"
    case minDetectionConfidence = "min_detection_confidence"
    case minSuppressionThreshold = "min_suppression_threshold"
    case landmarksModelPath = "landmarks_model_path"
  }

  /// Decodes the options, refusing a name this type does not know (a misspelt option must
  /// not be ignored).
  static func decode(_ json: String) throws -> TaskConfiguration {
    let data = Data(json.utf8)
    for name in try JSONDecoder().decode([String: JSONIgnored].self, from: data).keys
    where CodingKeys(stringValue: name) == nil {
      throw CallError("unknown option '\(name)'")
    }
    return try JSONDecoder().decode(TaskConfiguration.self, from: data)
  }

  /// The model (which must exist) and threads, as both tasks take them.
  private func baseOptions() throws -> BaseOptions {
    try MissingFile.check(modelAssetPath)
    let options = BaseOptions(modelAssetPath: modelAssetPath)
    if let threadCount { options.threadCount = threadCount }
    return options
  }

  /// The landmarker's options.
  func landmarkerOptions() throws -> FaceLandmarkerOptions {
    let options = FaceLandmarkerOptions(baseOptions: try baseOptions(), runningMode: runningMode.runningMode)
    if let numFaces { options.numFaces = numFaces }
    if let minFaceDetectionConfidence { options.minFaceDetectionConfidence = minFaceDetectionConfidence }
    if let minFacePresenceConfidence { options.minFacePresenceConfidence = minFacePresenceConfidence }
    if let minTrackingConfidence { options.minTrackingConfidence = minTrackingConfidence }
    if let outputFaceBlendshapes { options.outputFaceBlendshapes = outputFaceBlendshapes }
    if let outputFacialTransformationMatrixes {
      options.outputFacialTransformationMatrixes = outputFacialTransformationMatrixes
    }
    if let outputHeadPoses { options.outputFaceHeadPoses = outputHeadPoses }
    if let outputMetricLandmarks { options.outputFaceMetricLandmarks = outputMetricLandmarks }
    if let outputIrisDistances { options.outputFaceIrisDistances = outputIrisDistances }
    if let outputScores { options.outputFaceScores = outputScores }
    if let trackFaces { options.isTrackingEnabled = trackFaces }
    if let landmarkSmoothing { options.landmarkSmoothing = landmarkSmoothing.value }
    if let searchAnyRotation { options.searchesAnyRotation = searchAnyRotation }
    switch detectorRange ?? .short {
    case .short: break
    case .full: options.faceDetectorModelAssetPath = fullRangeModelPath
    case .all:
      options.searchesAllScales = true
      options.fullRangeDetectorModelAssetPath = fullRangeModelPath
    }
    return options
  }

  /// The detector's options.
  func detectorOptions() throws -> FaceDetectorOptions {
    let options = FaceDetectorOptions(baseOptions: try baseOptions(), runningMode: runningMode.runningMode)
    if let minDetectionConfidence { options.minDetectionConfidence = minDetectionConfidence }
    if let minSuppressionThreshold { options.minSuppressionThreshold = minSuppressionThreshold }
    if let minFacePresenceConfidence { options.minFacePresenceConfidence = minFacePresenceConfidence }
    if let landmarksModelPath { options.landmarksModelAssetPath = landmarksModelPath }
    if let trackFaces { options.isTrackingEnabled = trackFaces }
    if let searchAnyRotation { options.searchesAnyRotation = searchAnyRotation }
    switch detectorRange ?? .short {
    case .short: break
    case .full: options.baseOptions.modelAssetPath = fullRangeModelPath
    case .all:
      options.searchesAllScales = true
      options.fullRangeDetectorModelAssetPath = fullRangeModelPath
    }
    return options
  }
}

/// Any JSON value, read only to learn an object's keys.
private struct JSONIgnored: Decodable {
  init(from decoder: Decoder) throws {}
}
