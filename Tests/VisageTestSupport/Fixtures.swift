import Foundation
import VisageTFLite

/// Where the tests find committed files: the repository's `Weights/` and `Tests/Fixtures/`.
///
/// Paths are derived from this source file's location, so tests work from any current
/// directory and from any build folder.
public enum Fixtures {
  /// The repository root: this file is `<root>/Tests/VisageTestSupport/Fixtures.swift`.
  public static let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
  }()

  /// The `Weights/` folder.
  public static var weightsDirectory: String { repositoryRoot + "/Weights" }

  /// The `Tests/Fixtures/` folder (filled by the fixture scripts under Tools/).
  public static var fixturesDirectory: String { repositoryRoot + "/Tests/Fixtures" }

  /// The path of `name` inside `Weights/`.
  public static func weightsPath(_ name: String) -> String { weightsDirectory + "/" + name }

  /// The path of `relativePath` inside `Tests/Fixtures/`.
  public static func fixturePath(_ relativePath: String) -> String {
    fixturesDirectory + "/" + relativePath
  }

  /// Whether a file or folder exists at `path`.
  public static func exists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: path)
  }

  /// The bytes of the file at `path`.
  public static func bytes(atPath path: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw FixtureError.unreadable(path)
    }
    return [UInt8](data)
  }

  /// The bytes of `Weights/face_landmarker.task`.
  public static func taskBundleBytes() throws -> [UInt8] {
    try bytes(atPath: BundledModel.taskBundlePath)
  }

  /// The entries of the bundled `face_landmarker.task`, in directory order.
  public static let taskBundleEntries = [
    "face_detector.tflite", "face_landmarks_detector.tflite",
    "geometry_pipeline_metadata_landmarks.binarypb", "face_blendshapes.tflite",
  ]
}

/// A fixture that could not be read.
public enum FixtureError: Error, CustomStringConvertible {
  /// The file is missing or unreadable.
  case unreadable(String)
  /// The file is not in the expected format.
  case malformed(String)

  public var description: String {
    switch self {
    case .unreadable(let path): "cannot read fixture '\(path)'"
    case .malformed(let reason): "malformed fixture: \(reason)"
    }
  }
}

/// The four models committed under `Weights/`.
///
/// A model is named by its `ModelSource` reference; `load()` turns it into a `TFLiteModel`.
public enum BundledModel: String, CaseIterable, Sendable, CustomStringConvertible {
  /// BlazeFace short range, input [1, 128, 128, 3].
  case faceDetector = "face_detector"
  /// Face mesh v2, input [1, 256, 256, 3].
  case faceLandmarksDetector = "face_landmarks_detector"
  /// Blendshapes from 146 landmarks, input [1, 146, 2].
  case faceBlendshapes = "face_blendshapes"
  /// BlazeFace full range, input [1, 192, 192, 3].
  case faceDetectionFullRange = "face_detection_full_range"

  /// The path of `Weights/face_landmarker.task`.
  public static var taskBundlePath: String { Fixtures.weightsPath("face_landmarker.task") }

  /// The model's benchmark name, such as `face_detector`.
  public var name: String { rawValue }

  public var description: String { rawValue }

  /// Whether the model is an entry of `face_landmarker.task` rather than a file of its own.
  public var isInTaskBundle: Bool { self != .faceDetectionFullRange }

  /// The entry name inside the bundle, or the file name inside `Weights/`.
  public var fileName: String { rawValue + ".tflite" }

  /// What `ModelSource.model(at:)` takes: `path.tflite` or `bundle.task:entry.tflite`.
  public var reference: String {
    isInTaskBundle ? Self.taskBundlePath + ":" + fileName : Fixtures.weightsPath(fileName)
  }

  /// Finds a model by its benchmark name.
  public init?(name: String) { self.init(rawValue: name) }
}

extension BundledModel {
  /// Loads the model through `ModelSource`, as the command line does.
  public func load() throws -> TFLiteModel { try ModelSource.model(at: reference) }
}
