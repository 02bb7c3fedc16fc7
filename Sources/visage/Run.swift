import ArgumentParser
import Foundation
import VisageKernels
import VisageRuntime
import VisageTFLite

extension Implementation: ExpressibleByArgument {}

struct Run: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run a model on float32 .npy inputs and write its outputs as .npy files.",
    discussion: """
      Examples:
        visage run Weights/face_detection_full_range.tflite --input face.npy --output-dir out
        visage run Weights/face_landmarker.task:face_blendshapes.tflite \\
            --input serving_default_input_points:0=points.npy
      """)

  @Argument(help: "A .tflite file, or one model inside a .task bundle as bundle.task:entry.tflite.")
  var model: String

  @Option(name: .customLong("input"), help: "An input as NAME=FILE.npy, or FILE.npy by position. Repeatable.")
  var inputs: [String] = []

  @Option(help: "Folder for out0.npy, out1.npy, ... in the model's output order.")
  var outputDir: String = "."

  @Option(help: "Kernels: optimized, reference (TFLite's reference loops) or blas (sgemm convolutions).")
  var kernels: Implementation = .optimized

  func run() throws {
    let loaded = try ModelSource.model(at: model)
    let interpreter = try Interpreter(model: loaded, implementation: kernels)
    let names = loaded.inputNames
    var tensors = [Tensor?](repeating: nil, count: names.count)
    for (position, spec) in inputs.enumerated() {
      var index = position
      var path = spec
      if let eq = spec.lastIndex(of: "="), let named = names.firstIndex(of: String(spec[..<eq])) {
        index = named
        path = String(spec[spec.index(after: eq)...])
      }
      guard index < names.count else {
        throw ValidationError("the model has \(names.count) inputs (\(names.joined(separator: ", "))); got more")
      }
      let tensor = try Tensor(npy: ModelSource.bytes(ofFile: path))
      // The shape itself, not only its size: (3, 128, 128, 1) is not [1, 128, 128, 3].
      guard tensor.shape == interpreter.inputShapes[index] else {
        throw ValidationError(
          "input '\(names[index])' needs shape \(interpreter.inputShapes[index]); \(path) has \(tensor.shape)")
      }
      tensors[index] = tensor
    }
    let missing = names.indices.filter { tensors[$0] == nil }.map { names[$0] }
    guard missing.isEmpty else { throw ValidationError("missing inputs: \(missing.joined(separator: ", "))") }
    let outputs = try interpreter.run(tensors.map { $0! })
    try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
    var described: [JSON] = []
    for (k, output) in outputs.enumerated() {
      let file = "\(outputDir)/out\(k).npy"
      guard FileManager.default.createFile(atPath: file, contents: Data(output.npy)) else {
        throw SetupError("cannot write \(file)")
      }
      described.append(
        .object([
          ("name", .string(loaded.outputNames[k])), ("shape", .array(output.shape.dimensions.map(JSON.int))),
          ("file", .string(file)),
        ]))
    }
    print(JSON.object([("model", .string(model)), ("outputs", .array(described))]))
  }
}
