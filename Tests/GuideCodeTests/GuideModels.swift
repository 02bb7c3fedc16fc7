import Foundation
import VisageTFLite
import VisageTestSupport

/// Puts the models where the guides' code looks for them, `Bundle.main` (on Linux, the
/// folder of the test program), under the guides' names: `face_landmarker.task` for the
/// landmarker, `face_detection_full_range.tflite` beside it, and `model.tflite`, the
/// short-range detector taken out of the bundle, for the detector. The guides' lines then
/// run as written. Writes only into the build folder.
enum GuideModels {
  static let placed: Void = {
    let folder = Bundle.main.bundlePath
    let landmarker = folder + "/face_landmarker.task"
    if !FileManager.default.fileExists(atPath: landmarker) {
      try? FileManager.default.createSymbolicLink(
        atPath: landmarker, withDestinationPath: Fixtures.weightsPath("face_landmarker.task"))
    }
    // The analyzer's accurate mode (README) reads the full-range detector beside the bundle.
    let fullRange = folder + "/face_detection_full_range.tflite"
    if !FileManager.default.fileExists(atPath: fullRange) {
      try? FileManager.default.createSymbolicLink(
        atPath: fullRange, withDestinationPath: Fixtures.weightsPath("face_detection_full_range.tflite"))
    }
    let detector = folder + "/model.tflite"
    if !FileManager.default.fileExists(atPath: detector),
      let bytes = try? TaskBundle(bytes: Fixtures.taskBundleBytes()).data(named: "face_detector.tflite")
    {
      // Written beside, then renamed, so that a second test process never reads half a file.
      let partial = detector + ".\(getpid()).partial"
      if FileManager.default.createFile(atPath: partial, contents: Data(bytes)) {
        _ = try? FileManager.default.moveItem(atPath: partial, toPath: detector)
        try? FileManager.default.removeItem(atPath: partial)
      }
    }
  }()

  /// Makes sure the models are in place; call before a guide's first line.
  static func place() { _ = placed }
}
