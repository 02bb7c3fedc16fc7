import Foundation
import Testing
import VisageRuntime
import VisageTFLite
import VisageTestSupport

/// The validation kit from the outside: `visage run --dump-tensors`, `visage compare` and
/// `visage run --against`, as docs/validation.md describes them.
@Suite struct ValidationCLITests {
  static let model = "Weights/face_landmarker.task:face_blendshapes.tflite"
  static let input = "Tests/Fixtures/runtime/face_blendshapes/face.input.npy"

  /// A fresh folder for one test.
  static func folder() -> String {
    let path = NSTemporaryDirectory() + "visage-validation-\(UUID().uuidString)"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// Dumps the blendshape model with `kernels` into `directory`.
  static func dump(_ directory: String, kernels: String = "optimized") throws {
    let run = try CLI.run([
      "run", model, "--input", input, "--kernels", kernels, "--dump-tensors", directory, "--output-dir",
      directory + "/out",
    ])
    try #require(run.status == 0, "\(run.stderr)")
  }

  static func manifest(_ directory: String) throws -> [String: Any] {
    let data = try #require(FileManager.default.contents(atPath: directory + "/manifest.json"))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  static func tensors(_ directory: String) throws -> [[String: Any]] {
    try #require(try manifest(directory)["tensors"] as? [[String: Any]])
  }

  /// Copies dump `source` to a new folder.
  static func copy(_ source: String) throws -> String {
    let target = folder() + "/copy"
    try FileManager.default.copyItem(atPath: source, toPath: target)
    return target
  }

  /// Rewrites one float32 tensor file of a dump.
  static func change(_ directory: String, file: String, _ edit: (inout [Float]) -> Void) throws {
    let path = directory + "/" + file
    var tensor = try Tensor(npy: Fixtures.bytes(atPath: path))
    edit(&tensor.values)
    try Data(tensor.npy).write(to: URL(fileURLWithPath: path))
  }

  static func compare(_ a: String, _ b: String, _ extra: [String] = []) throws -> (CLIRun, [String: Any]) {
    let run = try CLI.run(["compare", a, b, "--output", "json"] + extra)
    let report = try #require(try run.jsonLines().first, "\(run.stdout) \(run.stderr)")
    return (run, report)
  }

  /// The dump's manifest and files, and two kernels' dumps compared: every tensor within
  /// the default tolerance, no divergence, exit 0.
  @Test func dumpAndCompareTwoKernels() throws {
    let root = Self.folder()
    let run = try CLI.run([
      "run", Self.model, "--input", Self.input, "--dump-tensors", root + "/a", "--output-dir", root,
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let line = try #require(try run.jsonLines().first)
    #expect((line["dump"] as? [String: Any])?["directory"] as? String == root + "/a")
    #expect((line["outputs"] as? [[String: Any]])?.count == 1)
    let manifest = try Self.manifest(root + "/a")
    #expect(manifest["model"] as? String == Self.model && manifest["engine"] as? String == "visage optimized")
    #expect(manifest["stopped"] is NSNull)
    let tensors = try Self.tensors(root + "/a")
    #expect(tensors.count > 200)
    #expect(
      tensors.first?["name"] as? String == "serving_default_input_points:0" && tensors.first?["operator"] is NSNull)
    for tensor in tensors {
      let file = try #require(tensor["file"] as? String)
      #expect(FileManager.default.fileExists(atPath: root + "/a/" + file), "\(file)")
      if let op = tensor["operator"] as? [String: Any] {
        #expect(op["index"] is Int && op["type"] is String && op["inputs"] is [Int])
      }
    }
    try Self.dump(root + "/b", kernels: "reference")
    let (compared, report) = try Self.compare(root + "/a", root + "/b")
    #expect(compared.status == 0)
    #expect(report["compared"] as? Int == tensors.count && report["failed"] as? Int == 0)
    #expect(report["firstDivergence"] is NSNull)
    let text = try CLI.run(["compare", root + "/a", root + "/b", "--output", "text"])
    #expect(text.status == 0 && text.stdout.contains("\nfirst divergence: none"))
  }

  /// One intermediate changed on purpose: compare names that tensor first, with the
  /// operator that wrote it and its inputs (all within tolerance), and exits 1.
  @Test func perturbedIntermediateIsTheFirstDivergence() throws {
    let a = Self.folder() + "/a"
    try Self.dump(a)
    let b = try Self.copy(a)
    let tensors = try Self.tensors(b)
    let target = try #require(
      tensors.first { ($0["operator"] as? [String: Any])?["index"] as? Int == 40 }, "no output of operator 40")
    try Self.change(b, file: target["file"] as! String) { $0[$0.count / 2] += 0.01 }
    let (run, report) = try Self.compare(a, b)
    #expect(run.status == 1)
    let first = try #require(report["firstDivergence"] as? [String: Any])
    #expect(first["index"] as? Int == target["index"] as? Int)
    #expect(first["status"] as? String == "outOfTolerance" && first["mismatches"] as? Int == 1)
    #expect((first["operator"] as? [String: Any])?["index"] as? Int == 40)
    let inputs = try #require(first["inputs"] as? [[String: Any]])
    #expect(!inputs.isEmpty && inputs.allSatisfy { $0["status"] as? String == "ok" })
    let text = try CLI.run(["compare", a, b, "--output", "text"])
    #expect(text.status == 1)
    #expect(text.stdout.contains("\nfirst divergence: tensor \(target["index"] as! Int) '"))
    #expect(text.stdout.contains("written by operator 40 "))
    // Within a tolerance wider than the change, it passes.
    let (loose, _) = try Self.compare(a, b, ["--atol", "0.02"])
    #expect(loose.status == 0)
  }

  /// NaN where the other side has a number fails the tensor; the same NaN on both sides,
  /// or the same infinity, is a match.
  @Test func nonFiniteValues() throws {
    let a = Self.folder() + "/a"
    try Self.dump(a)
    let file = try #require(try Self.tensors(a).first { $0["operator"] is [String: Any] }?["file"] as? String)
    let b = try Self.copy(a)
    try Self.change(b, file: file) { $0[0] = .nan }
    let (run, report) = try Self.compare(a, b)
    #expect(run.status == 1)
    let first = try #require(report["firstDivergence"] as? [String: Any])
    #expect(first["status"] as? String == "nonFinite")
    let counts = try #require(first["nonFinite"] as? [String: Any])
    #expect(counts["a"] as? Int == 0 && counts["b"] as? Int == 1 && counts["mismatches"] as? Int == 1)
    // Equal tensors have an infinite signal-to-noise ratio; an error against an all-zero
    // reference a minus infinite one: strings, as JSON has no such numbers.
    let tensors = try #require(report["tensors"] as? [[String: Any]])
    #expect(tensors.first?["snrDb"] as? String == "inf")
    try Self.change(b, file: file) { $0 = $0.map { _ in 0 } }
    let (_, zeros) = try Self.compare(a, b)
    #expect((zeros["firstDivergence"] as? [String: Any])?["snrDb"] as? String == "-inf")
    try FileManager.default.removeItem(atPath: b)
    try FileManager.default.copyItem(atPath: a, toPath: b)
    try Self.change(b, file: file) { $0[0] = .nan }
    try Self.change(a, file: file) {
      $0[0] = .nan
      $0[1] = .infinity
    }
    try Self.change(b, file: file) { $0[1] = .infinity }
    let (same, sameReport) = try Self.compare(a, b)
    #expect(same.status == 0, "\(sameReport["firstDivergence"] ?? "")")
  }

  /// A tensor only one dump has is listed, not failed; a missing file or a shape that
  /// differs fails its tensor and says why.
  @Test func missingFilesAndShapes() throws {
    let a = Self.folder() + "/a"
    try Self.dump(a)
    let b = try Self.copy(a)
    var manifest = try Self.manifest(b)
    var tensors = try Self.tensors(b)
    let dropped = tensors.remove(at: 3)
    let deleted = tensors[5]
    try FileManager.default.removeItem(atPath: b + "/" + (deleted["file"] as! String))
    tensors[7]["shape"] = [1, 2, 3]
    manifest["tensors"] = tensors
    try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: b + "/manifest.json"))
    let (run, report) = try Self.compare(a, b)
    #expect(run.status == 1)
    #expect(report["onlyInA"] as? [Int] == [dropped["index"] as! Int] && report["onlyInB"] as? [Int] == [])
    let results = try #require(report["tensors"] as? [[String: Any]])
    let unreadable = results.first { $0["index"] as? Int == deleted["index"] as? Int }
    #expect(unreadable?["status"] as? String == "unreadable")
    #expect((unreadable?["problem"] as? String)?.contains(deleted["file"] as! String) == true)
    let reshaped = results.first { $0["index"] as? Int == tensors[7]["index"] as? Int }
    #expect(reshaped?["status"] as? String == "shapeMismatch")
  }

  /// Usage errors exit 2 before any report: no dump there, a bad tolerance, a manifest
  /// that names a file outside its folder.
  @Test func usageErrors() throws {
    let a = Self.folder() + "/a"
    try Self.dump(a)
    #expect(try CLI.run(["compare", a, "/nonexistent/dump"]).status == 2)
    #expect(try CLI.run(["compare", a, a, "--atol", "-1"]).status == 2)
    #expect(try CLI.run(["compare", a, a, "--rtol", "nan"]).status == 2)
    let b = try Self.copy(a)
    var manifest = try Self.manifest(b)
    var tensors = try Self.tensors(b)
    tensors[0]["file"] = "../a/manifest.json"
    manifest["tensors"] = tensors
    try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: b + "/manifest.json"))
    let outside = try CLI.run(["compare", a, b])
    #expect(outside.status == 2 && outside.stderr.contains("must be a file name"))
    tensors[0] = tensors[1]
    manifest["tensors"] = tensors
    try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: b + "/manifest.json"))
    let twice = try CLI.run(["compare", a, b])
    #expect(twice.status == 2 && twice.stderr.contains("both name tensor"), "\(twice.stderr)")
    tensors[0]["shape"] = nil
    manifest["tensors"] = tensors
    try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: b + "/manifest.json"))
    let shapeless = try CLI.run(["compare", a, b])
    #expect(shapeless.status == 2 && shapeless.stderr.contains("tensors[0].shape is missing"), "\(shapeless.stderr)")
    #expect(try CLI.run(["run", Self.model, "--input", Self.input, "--against", "optimized"]).status == 2)
    // Nothing in common is no pass: an empty dump, or one of another model.
    let empty = Self.folder()
    try Data(#"{"tensors": []}"#.utf8).write(to: URL(fileURLWithPath: empty + "/manifest.json"))
    let (none, report) = try Self.compare(empty, empty)
    #expect(none.status == 1 && report["compared"] as? Int == 0)
    #expect(try CLI.run(["compare", empty, a, "--output", "text"]).stdout.contains("nothing to compare"))
  }

  /// `--against reference` in one command: both dumps kept under the folder given, and the
  /// comparison printed as compare prints it.
  @Test func againstReference() throws {
    let root = Self.folder()
    let run = try CLI.run([
      "run", Self.model, "--input", Self.input, "--against", "reference", "--dump-tensors", root, "--output", "json",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let report = try #require(try run.jsonLines().first)
    #expect((report["compared"] as? Int ?? 0) > 200 && report["failed"] as? Int == 0)
    #expect(((report["b"] as? [String: Any])?["engine"] as? String) == "visage reference")
    // The fused graph inference runs is held to the reference too: the model has one output.
    let fused = try #require(report["fusedOutputs"] as? [[String: Any]])
    #expect(fused.count == 1 && fused[0]["status"] as? String == "ok" && fused[0]["index"] as? Int == 195)
    #expect(FileManager.default.fileExists(atPath: root + "/optimized/manifest.json"))
    #expect(FileManager.default.fileExists(atPath: root + "/reference/manifest.json"))
  }

  /// A model with an operator the runtime lacks: what comes before it is dumped, the
  /// manifest and stderr name the operator, and the run exits 1.
  @Test func partialDumpOfAnUnsupportedModel() throws {
    let root = Self.folder()
    let model = root + "/softmax.tflite"
    try Data(TinyModel.stopsAtSoftmax.bytes).write(to: URL(fileURLWithPath: model))
    try Data(Tensor(shape: Shape([4]), values: [1, 2, 3, 4]).npy).write(to: URL(fileURLWithPath: root + "/x.npy"))
    let run = try CLI.run(["run", model, "--input", root + "/x.npy", "--dump-tensors", root + "/dump"])
    #expect(run.status == 1)
    #expect(run.stderr.contains("operator 1 (SOFTMAX)"))
    let line = try #require(try run.jsonLines().first)
    #expect(line["outputs"] == nil)
    let stopped = try #require(try Self.manifest(root + "/dump")["stopped"] as? [String: Any])
    #expect((stopped["operator"] as? [String: Any])?["type"] as? String == "SOFTMAX")
    let tensors = try Self.tensors(root + "/dump")
    #expect(tensors.map { $0["index"] as? Int } == [0, 1, 2])
    let sum = try NPYArray(npy: Fixtures.bytes(atPath: root + "/dump/" + (tensors[2]["file"] as! String)))
    #expect(sum.values == [2, 4, 6, 8])
    // A stopped dump cannot pass a comparison, not even with itself.
    let (compared, report) = try Self.compare(root + "/dump", root + "/dump")
    #expect(compared.status == 1 && report["failed"] as? Int == 0)
    let text = try CLI.run(["compare", root + "/dump", root + "/dump", "--output", "text"])
    #expect(text.status == 1 && text.stdout.contains("A stopped at operator 1 SOFTMAX"))
  }
}

/// Against a dump LiteRT wrote (`Tools/litert_dump.py`, trimmed by
/// `Tools/make_validation_fixtures.py` to its small tensors): its layout reads, and
/// Visage's reference kernels give every shared tensor bit for bit.
@Suite struct LiteRTDumpTests {
  static let litert = "Tests/Fixtures/validation/litert-blendshapes"

  @Test func referenceKernelsMatchLiteRTExactly() throws {
    let a = ValidationCLITests.folder() + "/a"
    try ValidationCLITests.dump(a, kernels: "reference")
    let (run, report) = try ValidationCLITests.compare(a, Self.litert, ["--atol", "0", "--rtol", "0"])
    #expect(run.status == 0, "\(report["firstDivergence"] ?? "")")
    #expect(report["compared"] as? Int == 135 && (report["onlyInB"] as? [Int])?.isEmpty == true)
    #expect(((report["b"] as? [String: Any])?["engine"] as? String)?.hasPrefix("litert ") == true)
    let tensors = try #require(report["tensors"] as? [[String: Any]])
    #expect(tensors.allSatisfy { $0["maxAbsError"] as? Double == 0 })
  }

  /// LiteRT's XNNPACK path, every operator output marked as a model output: the optimized
  /// kernels are within the default tolerance of it, and the DEQUANTIZE outputs XNNPACK never
  /// writes (listed under notWritten) are Visage's alone.
  @Test func optimizedKernelsAgainstXNNPACK() throws {
    let xnnpack = Self.litert + "-xnnpack"
    let a = ValidationCLITests.folder() + "/a"
    try ValidationCLITests.dump(a)
    let (run, report) = try ValidationCLITests.compare(a, xnnpack)
    #expect(run.status == 0, "\(report["firstDivergence"] ?? "")")
    #expect(report["compared"] as? Int == 104 && (report["onlyInB"] as? [Int])?.isEmpty == true)
    let manifest = try ValidationCLITests.manifest(xnnpack)
    #expect(manifest["markedOutputsGap"] as? Double == 0)
    let unwritten = try #require((manifest["notWritten"] as? [String: Any])?["tensors"] as? [Int])
    #expect(unwritten.count == 49 && Set(unwritten).isSubset(of: Set(report["onlyInA"] as? [Int] ?? [])))
  }

  @Test func optimizedKernelsWithinTheDefaultTolerance() throws {
    let a = ValidationCLITests.folder() + "/a"
    try ValidationCLITests.dump(a)
    let (run, report) = try ValidationCLITests.compare(a, Self.litert)
    #expect(run.status == 0, "\(report["firstDivergence"] ?? "")")
  }
}

/// `visage` stops OpenBLAS's idle worker threads when it starts (`GEMM.stopIdleThreads`), so
/// that they do not spin on the CPU its own threads need; the `.blas` kernels still work after
/// that, within the default tolerance of the reference kernels.
@Suite struct BLASAfterStartTests {
  @Test func blasKernelsRunAfterTheWorkersAreStopped() throws {
    let run = try CLI.run([
      "run", "Weights/face_detection_full_range.tflite", "--input",
      "Tests/Fixtures/runtime/face_detection_full_range/face.input.npy", "--kernels", "blas", "--against",
      "reference", "--output", "json",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let report = try #require(try run.jsonLines().first, "\(run.stdout) \(run.stderr)")
    #expect(report["failed"] as? Int == 0)
    #expect(report["compared"] as? Int ?? 0 > 500)
  }
}
