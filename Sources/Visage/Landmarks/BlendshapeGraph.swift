import VisageKernels
import VisageRuntime
import VisageTFLite

/// The blendshape model: 52 expression scores from 146 of the 478 landmarks, as
/// MediaPipe's `FaceBlendshapesGraph` computes them
/// (mediapipe/tasks/cc/vision/face_landmarker/face_blendshapes_graph.cc).
///
/// Not thread-safe: callers serialise use.
final class BlendshapeGraph {
  /// The landmarks the model reads, in its input order (`kLandmarksSubsetIdxs`).
  static let landmarkSubset: [Int] = [
    0, 1, 4, 5, 6, 7, 8, 10, 13, 14, 17, 21, 33, 37, 39, 40, 46, 52, 53, 54, 55, 58, 61, 63, 65, 66,
    67, 70, 78, 80, 81, 82, 84, 87, 88, 91, 93, 95, 103, 105, 107, 109, 127, 132, 133, 136, 144, 145,
    146, 148, 149, 150, 152, 153, 154, 155, 157, 158, 159, 160, 161, 162, 163, 168, 172, 173, 176, 178,
    181, 185, 191, 195, 197, 234, 246, 249, 251, 263, 267, 269, 270, 276, 282, 283, 284, 285, 288, 291,
    293, 295, 296, 297, 300, 308, 310, 311, 312, 314, 317, 318, 321, 323, 324, 332, 334, 336, 338, 356,
    361, 362, 365, 373, 374, 375, 377, 378, 379, 380, 381, 382, 384, 385, 386, 387, 388, 389, 390, 397,
    398, 400, 402, 405, 409, 415, 454, 466, 468, 469, 470, 471, 472, 473, 474, 475, 476, 477,
  ]

  /// The 52 category names, in output order.
  static let categoryNames = [
    "_neutral", "browDownLeft", "browDownRight", "browInnerUp", "browOuterUpLeft", "browOuterUpRight",
    "cheekPuff", "cheekSquintLeft", "cheekSquintRight", "eyeBlinkLeft", "eyeBlinkRight", "eyeLookDownLeft",
    "eyeLookDownRight", "eyeLookInLeft", "eyeLookInRight", "eyeLookOutLeft", "eyeLookOutRight",
    "eyeLookUpLeft", "eyeLookUpRight", "eyeSquintLeft", "eyeSquintRight", "eyeWideLeft", "eyeWideRight",
    "jawForward", "jawLeft", "jawOpen", "jawRight", "mouthClose", "mouthDimpleLeft", "mouthDimpleRight",
    "mouthFrownLeft", "mouthFrownRight", "mouthFunnel", "mouthLeft", "mouthLowerDownLeft",
    "mouthLowerDownRight", "mouthPressLeft", "mouthPressRight", "mouthPucker", "mouthRight",
    "mouthRollLower", "mouthRollUpper", "mouthShrugLower", "mouthShrugUpper", "mouthSmileLeft",
    "mouthSmileRight", "mouthStretchLeft", "mouthStretchRight", "mouthUpperUpLeft", "mouthUpperUpRight",
    "noseSneerLeft", "noseSneerRight",
  ]

  private let interpreter: Interpreter

  init(model: TFLiteModel, pool: ThreadPool? = nil) throws(VisionTaskError) {
    do { interpreter = try Interpreter(model: model, pool: pool) } catch { throw .invalidModel("\(error)") }
    let input = interpreter.inputShapes.map(\.dimensions)
    let output = interpreter.outputShapes.map(\.dimensions)
    guard input == [[1, 146, 2]], output.first.map({ $0.reduce(1, *) }) == 52 else {
      throw .invalidModel(
        "a blendshape model takes [1, 146, 2] and outputs 52 scores; this one takes \(input) and outputs \(output)")
    }
  }

  /// The 52 raw scores (no activation) for one face's normalized landmarks.
  func scores(_ landmarks: [SIMD3<Float>], imageWidth: Int, imageHeight: Int) -> [Float] {
    interpreter.withInput(0) { tensor in
      for (row, index) in Self.landmarkSubset.enumerated() {
        tensor[2 * row] = landmarks[index].x * Float(imageWidth)
        tensor[2 * row + 1] = landmarks[index].y * Float(imageHeight)
      }
    }
    interpreter.invoke()
    return interpreter.withOutput(0) { Array($0) }
  }
}
