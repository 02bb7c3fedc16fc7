import ArgumentParser
import Foundation

struct Compare: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Compare two tensor dumps of one model, tensor by tensor in execution order.",
    discussion: """
      B is the reference. Each tensor in both dumps passes when every value meets \
      |a - b| <= atol + rtol·|b|; NaN and infinity must be the same on both sides. Exit \
      status: 0 when every shared tensor passes, 1 when one does not, when a dump stopped at an \
      operator it could not run, or when no tensor is in both, 2 for usage errors. \
      The folders' layout is in docs/validation.md.

      Example:
        visage run Weights/face_landmarker.task:face_blendshapes.tflite --input points.npy \\
            --dump-tensors out/visage
        .venv/bin/python Tools/litert_dump.py Weights/face_landmarker.task:face_blendshapes.tflite \\
            --input points.npy out/litert
        visage compare out/visage out/litert
      """)

  @Argument(help: "A tensor dump folder (with manifest.json).")
  var dumpA: String

  @Argument(help: "The reference dump folder.")
  var dumpB: String

  @OptionGroup var tolerance: ToleranceOptions

  @Option(help: "json or text (default: text on a terminal, JSON otherwise).")
  var output: OutputFormat?

  func run() throws {
    let comparison = try DumpComparison(
      dumpA, dumpB, tolerance: tolerance.bound)
    print(output ?? .automatic == .json ? comparison.json.description : comparison.text)
    // A dump that stopped early, or none in common, cannot pass for a whole model.
    if comparison.fails { throw ExitCode(1) }
  }
}

/// `--atol` and `--rtol`, shared by `compare` and `run --against`.
struct ToleranceOptions: ParsableArguments {
  @Option(parsing: .unconditional, help: "Absolute tolerance.")
  var atol: Double = 1e-4

  @Option(parsing: .unconditional, help: "Relative tolerance, a fraction of the reference value.")
  var rtol: Double = 1e-3

  func validate() throws {
    for (name, value) in [("--atol", atol), ("--rtol", rtol)] where !(value.isFinite && value >= 0) {
      throw ValidationError("\(name) must be a finite number of at least 0, got \(value)")
    }
  }

  var bound: DumpComparison.Tolerance { .init(atol: atol, rtol: rtol) }
}
