import Foundation
import VisageKernels
import VisageRuntime
import VisageTFLite

/// The face mesh model with its pre- and postprocessing: MediaPipe's
/// `SingleFaceLandmarksDetectorGraph` for one region of one image.
///
/// Not thread-safe: it owns the interpreter's memory, so callers serialise use.
final class LandmarkGraph {
  /// What one run of the model gives for one region.
  struct Output {
    /// 478 landmarks, x and y normalized to the image, z in x-normalized units.
    var landmarks: [SIMD3<Float>]
    /// The sigmoid of the presence logit: how sure the model is a face is in the region.
    var presence: Float
  }

  static let landmarkCount = 478
  private static let inputSize = 256
  private let interpreter: Interpreter
  private let imageToTensor: ImageToTensor

  /// Checks that `model` is the 478-landmark face mesh and plans it.
  init(model: TFLiteModel, pool: ThreadPool? = nil) throws(VisionTaskError) {
    do { interpreter = try Interpreter(model: model, pool: pool) } catch { throw .invalidModel("\(error)") }
    let input = interpreter.inputShapes.map(\.dimensions)
    let output = interpreter.outputShapes.map(\.dimensions)
    guard input == [[1, 256, 256, 3]], output.count >= 2, output[0] == [1, 1, 1, 1434], output[1] == [1, 1, 1, 1] else {
      throw .invalidModel(
        "a face mesh model takes [1, 256, 256, 3] and outputs [1, 1, 1, 1434] and [1, 1, 1, 1]; this one takes \(input) and outputs \(output)"
      )
    }
    // The model's metadata normalises with mean 0, std 255; the region is stretched (no
    // letterbox) and edges are replicated.
    imageToTensor = ImageToTensor(
      width: Self.inputSize, height: Self.inputSize, keepAspectRatio: false, border: .replicate, range: 0...1)
  }

  /// Runs the model on `rect` of `image` and projects the landmarks back to the image.
  func run(_ image: MPImage, rect: NormalizedRect) throws(VisionTaskError) -> Output {
    let matrix = try invoke(image, rect: rect)
    // z is scaled by the length of the projected unit x vector (`CalculateZScale`).
    let origin = matrix.apply(.zero)
    let unitX = matrix.apply(SIMD2(1, 0))
    let dx = origin.x - unitX.x
    let dy = origin.y - unitX.y
    let zScale = (dx * dx + dy * dy).squareRoot()
    let size = Float(Self.inputSize)
    let landmarks = interpreter.withOutput(0) { raw in
      (0..<Self.landmarkCount).map { i in
        let p = matrix.apply(SIMD2(raw[3 * i] / size, raw[3 * i + 1] / size))
        return SIMD3(p.x, p.y, raw[3 * i + 2] / size * zScale)
      }
    }
    return Output(landmarks: landmarks, presence: presenceOfLastRun)
  }

  /// The face presence alone in `rect` of `image` (for the detector's check: the landmarks
  /// are not projected or kept).
  func presence(_ image: MPImage, rect: NormalizedRect) throws(VisionTaskError) -> Float {
    _ = try invoke(image, rect: rect)
    return presenceOfLastRun
  }

  /// Fills the input from `rect` of `image` and runs the model; returns the input's
  /// projection matrix (model input to image).
  private func invoke(_ image: MPImage, rect: NormalizedRect) throws(VisionTaskError) -> ProjectionMatrix {
    let matrix = try interpreter.withInput(0) { tensor in
      Result { () throws(VisionTaskError) in try imageToTensor.convert(image, rect: rect, into: tensor) }
    }.get()
    interpreter.invoke()
    return matrix
  }

  /// The sigmoid of the last run's presence logit.
  private var presenceOfLastRun: Float { sigmoid(interpreter.withOutput(1) { $0[0] }) }
}
