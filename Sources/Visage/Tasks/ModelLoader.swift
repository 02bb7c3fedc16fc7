import Foundation
import VisageKernels
import VisageRuntime
import VisageTFLite

/// Every model file a task reads, and the stages built from them: the one place that turns
/// options' paths into detector searches and landmarker pipelines, with the errors a bad
/// path or model gives (`VisionTaskError.invalidModel`).
///
/// The tasks call it from their initializers; `FaceAnalyzer` gets the same pipeline the
/// landmarker runs.
enum ModelLoader {
  /// A detector from a `.tflite`, a `.task` bundle (its `face_detector.tflite`) or a
  /// `bundle.task:entry` reference.
  static func detectorModel(at path: String) throws(VisionTaskError) -> TFLiteModel {
    guard !path.isEmpty else { throw .invalidModel("no model path given (baseOptions.modelAssetPath)") }
    let reference = path.hasSuffix(".task") ? path + ":face_detector.tflite" : path
    do { return try ModelSource.model(at: reference) } catch { throw .invalidModel("\(error)") }
  }

  /// The detectors a `FaceDetector` with `options` runs (already validated).
  static func faceSearch(for options: FaceDetectorOptions, pool: ThreadPool?) throws(VisionTaskError) -> FaceSearch {
    // The detector first, so that a missing or bad model path is reported as such.
    let primary = try detectorModel(at: options.baseOptions.path)
    var verifier: (landmarks: LandmarkGraph, minPresence: Float)?
    if let minPresence = options.minFacePresenceConfidence {
      let model = try landmarksModel(at: options.landmarksModelAssetPath, bundle: options.baseOptions.path)
      verifier = (try LandmarkGraph(model: model, pool: pool), minPresence)
    }
    return try faceSearch(
      primary: primary, allScales: options.searchesAllScales,
      fullRangePath: options.fullRangeDetectorModelAssetPath, besideModel: options.baseOptions.path,
      anyRotation: options.searchesAnyRotation, verifier: verifier, pool: pool,
      maximumRuns: options.baseOptions.maximumSearchRuns)
  }

  /// The face landmark model a detector checks its faces with: from `path` (a `.tflite`, or
  /// a `.task` bundle's `face_landmarks_detector.tflite`), or when that is nil from the
  /// bundle the detector's own model reference names (`x.task` or `x.task:entry`).
  static func landmarksModel(at path: String?, bundle modelPath: String) throws(VisionTaskError) -> TFLiteModel {
    let entry = ":face_landmarks_detector.tflite"
    let reference: String
    if let path {
      reference = path.hasSuffix(".task") ? path + entry : path
    } else if let range = modelPath.range(of: ".task", options: .backwards),
      range.upperBound == modelPath.endIndex || modelPath[range.upperBound] == ":"
    {
      reference = modelPath[..<range.upperBound] + entry
    } else {
      throw .invalidModel(
        "checking faces (minFacePresenceConfidence) needs the face landmark model: set landmarksModelAssetPath, "
          + "or give a face_landmarker .task bundle as the model (got \(modelPath.isEmpty ? "none" : modelPath))")
    }
    do { return try ModelSource.model(at: reference) } catch { throw .invalidModel("\(error)") }
  }

  /// The landmarker's stages for `options` (already validated), loaded from the `.task`
  /// bundle at `baseOptions.modelAssetPath` (and a separate detector when
  /// `faceDetectorModelAssetPath` is set), sharing one set of threads: the three models run
  /// one after another.
  static func landmarkerPipeline(for options: FaceLandmarkerOptions) throws(VisionTaskError) -> LandmarkerPipeline {
    let path = options.baseOptions.path
    let bundle: TaskBundle
    let bytes: [UInt8]
    do { bytes = try ModelSource.bytes(ofFile: path) } catch {
      throw .invalidModel(path.isEmpty ? "no model path given (baseOptions.modelAssetPath)" : "\(error)")
    }
    do { bundle = try TaskBundle(bytes: bytes) } catch {
      // A bare .tflite (a detector, say) is the usual mistake: say what is needed.
      throw .invalidModel(
        "\(error); the landmarker needs a face_landmarker .task bundle (a zip of its models), such as Weights/face_landmarker.task"
      )
    }
    func model(_ name: String) throws(VisionTaskError) -> TFLiteModel {
      do { return try TFLiteModel(bytes: bundle.data(named: name)) } catch { throw .invalidModel("\(path): \(error)") }
    }
    let pool = try options.baseOptions.threadPool()
    let primaryModel =
      if let separate = options.faceDetectorModelAssetPath { try detectorModel(at: separate) } else {
        try model("face_detector.tflite")
      }
    let detector = try faceSearch(
      primary: primaryModel,
      allScales: options.searchesAllScales, fullRangePath: options.fullRangeDetectorModelAssetPath,
      besideModel: path, anyRotation: options.searchesAnyRotation, pool: pool,
      maximumRuns: options.baseOptions.maximumSearchRuns)
    let landmarks = try LandmarkGraph(model: model("face_landmarks_detector.tflite"), pool: pool)
    var blendshapes: BlendshapeGraph?
    if options.outputFaceBlendshapes {
      guard bundle.entryNames.contains("face_blendshapes.tflite") else {
        throw .invalidModel("\(path) has no face_blendshapes.tflite, which outputFaceBlendshapes needs")
      }
      blendshapes = try BlendshapeGraph(model: model("face_blendshapes.tflite"), pool: pool)
    }
    var geometry: FaceGeometry?
    if options.needsGeometry {
      let name = "geometry_pipeline_metadata_landmarks.binarypb"
      do { geometry = try FaceGeometry(metadata: bundle.data(named: name)) } catch {
        throw .invalidModel("\(path): \(name): \(error)")
      }
    }
    return LandmarkerPipeline(
      detector: detector, landmarks: landmarks, blendshapes: blendshapes, geometry: geometry, options: options)
  }

  /// The detectors any task's options ask for: `primary` alone, plus the full-range model
  /// for all scales, from `fullRangePath` or, when that is nil,
  /// `face_detection_full_range.tflite` beside `modelPath` (where the repository's Weights keep
  /// it). `primary` must then be the short-range model.
  private static func faceSearch(
    primary: TFLiteModel, allScales: Bool, fullRangePath: String?, besideModel modelPath: String,
    anyRotation: Bool, verifier: (landmarks: LandmarkGraph, minPresence: Float)? = nil, pool: ThreadPool?,
    maximumRuns: Int
  ) throws(VisionTaskError) -> FaceSearch {
    let primaryModel = primary
    let primary = try DetectorGraph(model: primary, pool: pool)
    var fullRange: DetectorGraph?
    var crew: (pairs: [FaceSearch.DetectorPair], pool: ThreadPool)?
    if allScales {
      let fullRangePath =
        fullRangePath
        ?? URL(fileURLWithPath: modelPath).deletingLastPathComponent()
        .appendingPathComponent("face_detection_full_range.tflite").path
      guard primary.range == .short else {
        throw .invalidOption(
          "searching all scales needs the short-range detector as the model and the full-range one apart")
      }
      let model: TFLiteModel
      do { model = try detectorModel(at: fullRangePath) } catch {
        throw .invalidModel(
          "searching all scales needs the full-range detector, which could not be loaded from \(fullRangePath): \(error)"
        )
      }
      fullRange = try DetectorGraph(model: model, pool: pool)
      guard fullRange?.range == .full else {
        throw .invalidModel("\(fullRangePath) is not the full-range (192×192) detector that searching all scales needs")
      }
      // A tile or a look is too small a run to share out well layer by layer; with threads,
      // each takes its share of the tiles and looks with copies of the detectors of its own.
      if let pool, pool.threadCount > 1 {
        var pairs: [FaceSearch.DetectorPair] = []
        for _ in 0..<pool.threadCount {
          pairs.append(
            .init(primary: try DetectorGraph(model: primaryModel), fullRange: try DetectorGraph(model: model)))
        }
        crew = (pairs, pool)
      }
    }
    return FaceSearch(
      primary: primary, fullRange: fullRange, anyRotation: anyRotation, verifier: verifier, crew: crew,
      maximumRuns: maximumRuns)
  }
}
