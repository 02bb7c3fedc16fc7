import ArgumentParser
import Foundation
import VisageKernels
import VisageRuntime
import VisageTFLite

extension Implementation: ExpressibleByArgument {}

struct Run: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run a model on float32 .npy inputs and write its outputs, or every tensor, as .npy files.",
    discussion: """
      --dump-tensors writes every tensor (inputs, constants, every operator's output) with a \
      manifest, for `visage compare` (docs/validation.md); the graph then runs unfused, so \
      that the tensors fusion removes are kept. --against runs the model again with other \
      kernels and prints the comparison, as `visage compare` would.

      Examples:
        visage run Weights/face_detection_full_range.tflite --input face.npy --output-dir out
        visage run Weights/face_landmarker.task:face_blendshapes.tflite \\
            --input serving_default_input_points:0=points.npy --dump-tensors out/dump
        visage run Weights/face_landmarker.task:face_blendshapes.tflite --input points.npy \\
            --against reference
      """)

  @Argument(help: "A .tflite file, or one model inside a .task bundle as bundle.task:entry.tflite.")
  var model: String

  @Option(name: .customLong("input"), help: "An input as NAME=FILE.npy, or FILE.npy by position. Repeatable.")
  var inputs: [String] = []

  @Option(help: "Folder for out0.npy, out1.npy, ... in the model's output order.")
  var outputDir: String = "."

  @Option(help: "Kernels: optimized, reference (TFLite's reference loops) or blas (sgemm convolutions).")
  var kernels: Implementation = .optimized

  @Option(help: "Also write every tensor to this folder as NNNN_name.npy, with manifest.json.")
  var dumpTensors: String?

  @Option(
    help:
      "Run again with these kernels, the reference, and compare every tensor (with --dump-tensors DIR, both dumps are kept in DIR/KERNELS)."
  )
  var against: Implementation?

  @OptionGroup var tolerance: ToleranceOptions

  @Option(help: "The --against report: json or text (default: text on a terminal, JSON otherwise).")
  var output: OutputFormat?

  func validate() throws {
    if against == kernels { throw ValidationError("--against names the kernels already chosen (\(kernels.rawValue))") }
    if output != nil, against == nil { throw ValidationError("--output applies to the --against report only") }
  }

  func run() throws {
    let bytes = try ModelSource.modelBytes(at: model)
    if let against {
      try compare(bytes, against: against)
      return
    }
    guard let dumpTensors else {
      let loaded = try TFLiteModel(bytes: bytes)
      let outputs = try Interpreter(model: loaded, implementation: kernels).run(readInputs(loaded))
      print(JSON.object([("model", BytePath(model).json), ("outputs", try write(outputs, of: loaded))]))
      return
    }
    let dump = try TensorDump(modelBytes: bytes)
    let outputs = try self.dump(dump, kernels, inputs: readInputs(dump.model), to: dumpTensors)
    var fields: [(String, JSON)] = [("model", BytePath(model).json)]
    if dump.stop == nil {
      fields.append(("outputs", try write(outputs, of: dump.model)))
    }
    fields.append(
      ("dump", .object([("directory", BytePath(dumpTensors).json), ("tensors", .int(dump.entries.count))])))
    print(JSON.object(fields))
    if let stop = dump.stop {
      StandardOutput.flush()
      FileHandle.standardError.write(
        Data(
          ("Error: the model stops at operator \(stop.index) (\(stop.type)): \(stop.reason); the \(dump.entries.count) "
            + "tensors before it are in \(BytePath(dumpTensors).description)\n").utf8))
      throw ExitCode(1)
    }
  }

  /// The `.npy` inputs in the model's input order, each checked against its shape.
  private func readInputs(_ loaded: TFLiteModel) throws -> [Tensor] {
    let names = loaded.inputNames
    // The declared shapes, which the interpreter takes for its inputs.
    let shapes = loaded.graph.inputs.map { loaded.graph.tensors[$0].shape }
    var tensors = [Tensor?](repeating: nil, count: names.count)
    for (position, spec) in inputs.enumerated() {
      var index = position
      let path: String
      if let eq = spec.lastIndex(of: "="), let input = names.firstIndex(of: String(spec[..<eq])) {
        index = input
        path = String(spec[spec.index(after: eq)...])
      } else if let eq = spec.firstIndex(of: "="), !BytePath(spec).exists {
        // NAME=FILE with a NAME the model lacks, and no file by the whole name.
        throw ValidationError(
          "the model has no input named '\(spec[..<eq])'; its inputs are \(names.map { "'\($0)'" }.joined(separator: ", "))"
        )
      } else {
        path = spec
      }
      guard index < names.count else {
        throw ValidationError(
          "the model has \(names.count) input\(names.count == 1 ? "" : "s") (\(names.joined(separator: ", "))); got more"
        )
      }
      let file = try ModelSource.bytes(ofFile: path)
      let tensor: Tensor
      do { tensor = try Tensor(npy: file) } catch { throw SetupError("\(BytePath(path).description): \(error)") }
      // The shape itself, not only its size: (3, 128, 128, 1) is not [1, 128, 128, 3].
      guard tensor.shape == shapes[index] else {
        throw ValidationError(
          "input '\(names[index])' needs shape \(shapes[index]); \(BytePath(path)) has \(tensor.shape)")
      }
      tensors[index] = tensor
    }
    let missing = names.indices.filter { tensors[$0] == nil }.map { names[$0] }
    guard missing.isEmpty else { throw ValidationError("missing inputs: \(missing.joined(separator: ", "))") }
    return tensors.map { $0! }
  }

  /// Writes `outputs` to the output folder; their description for the JSON line.
  private func write(_ outputs: [Tensor], of loaded: TFLiteModel) throws -> JSON {
    if let problem = BytePath(outputDir).makeFolders() {
      throw SetupError("cannot make the output folder '\(self.outputDir)' (--output-dir): \(problem)")
    }
    var described: [JSON] = []
    for (k, output) in outputs.enumerated() {
      let file = "\(outputDir)/out\(k).npy"
      if let problem = BytePath(file).write(output.npy) { throw SetupError("cannot write \(file): \(problem)") }
      described.append(
        .object([
          ("name", .string(loaded.outputNames[k])), ("shape", .array(output.shape.dimensions.map(JSON.int))),
          ("file", BytePath(file).json),
        ]))
    }
    return .array(described)
  }

  /// Runs `dump`'s graph unfused with `implementation` on `inputs` and writes every tensor
  /// and the manifest to `directory`; returns the outputs.
  private func dump(
    _ dump: TensorDump, _ implementation: Implementation, inputs: [Tensor], to directory: String
  ) throws -> [Tensor] {
    let interpreter = try Interpreter(model: dump.model, implementation: implementation, preservingAllTensors: true)
    let outputs = try interpreter.run(inputs)
    if let problem = BytePath(directory).makeFolders() {
      throw SetupError("cannot make the dump folder '\(BytePath(directory).description)': \(problem)")
    }
    // An earlier dump's manifest must not stand over this dump's files if it stops halfway.
    guard unlink(BytePath(directory + "/manifest.json").cString) == 0 || errno == ENOENT else {
      throw SetupError(
        "cannot replace '\(BytePath(directory))/manifest.json': \(String(cString: strerror(errno)))")
    }
    for entry in dump.entries {
      let path = directory + "/" + entry.file
      guard let bytes = dump.npy(of: entry, from: interpreter), BytePath(path).write(bytes) == nil else {
        throw SetupError("cannot write \(path)")
      }
    }
    let manifest = DumpManifest(
      model: BytePath(model).description, engine: "visage \(implementation.rawValue)", dump: dump)
    let path = directory + "/manifest.json"
    if let problem = BytePath(path).write(Array((manifest.json.description + "\n").utf8)) {
      throw SetupError("cannot write \(path): \(problem)")
    }
    return outputs
  }

  /// `--against`: both dumps, then the comparison, printed as `visage compare` prints it.
  private func compare(_ bytes: [UInt8], against reference: Implementation) throws {
    let dump = try TensorDump(modelBytes: bytes)
    let temporary = dumpTensors == nil
    let root =
      dumpTensors
      ?? FileManager.default.temporaryDirectory.appendingPathComponent("visage-run-\(UUID().uuidString)").path
    defer { if temporary { try? FileManager.default.removeItem(atPath: root) } }
    let (a, b) = (root + "/" + kernels.rawValue, root + "/" + reference.rawValue)
    let inputs = try readInputs(dump.model)
    _ = try self.dump(dump, kernels, inputs: inputs, to: a)
    _ = try self.dump(dump, reference, inputs: inputs, to: b)
    var comparison = try DumpComparison(a, b, tolerance: tolerance.bound)
    if dump.stop == nil {
      // The dumps run unfused; inference runs the fused graph. Its outputs are held to B too,
      // so that a fault in a fused kernel cannot pass.
      let outputs = try Interpreter(model: dump.model, implementation: kernels).run(inputs)
      comparison.compareFused(outputs: Array(zip(dump.model.graph.outputs, outputs)).map { (index: $0, tensor: $1) })
    }
    print(output ?? .automatic == .json ? comparison.json.description : comparison.text)
    if comparison.fails { throw ExitCode(1) }
  }
}
