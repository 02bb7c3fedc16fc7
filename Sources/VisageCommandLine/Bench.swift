import ArgumentParser
import Foundation
import Visage
import VisageHosting
import VisageImageIO
import VisageKernels
import VisageRuntime
import VisageTFLite

struct Bench: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Time each bundled model: warm-up, then timed runs; min, median and p90.",
    discussion: """
      Build with -c release. Examples:
        swift run -c release visage bench
        swift run -c release visage bench --threads 2 --only face_landmarks_detector --profile
        swift run -c release visage bench --only nv12_frame
      For LiteRT side by side in the same run: python3 Benchmarks/compare.py
      """)

  @Option(
    parsing: .unconditional,
    help: "Threads each model's larger operators share (and BLAS's threads with --kernels blas), 1...64.")
  var threads = 1

  @Option(parsing: .unconditional, help: "Timed runs per item.")
  var iterations = 200

  @Option(parsing: .unconditional, help: "Untimed runs before timing.")
  var warmup = 20

  @Option(help: "Measure only this item (repeatable): \(Bench.itemNames.joined(separator: ", ")).")
  var only: [String] = []

  @Option(help: "The image for pipeline items (default: Weights/bench/astronaut.png).")
  var image: String?

  /// Pipeline items: a task end to end on a decoded image (decoding excluded), and
  /// `landmarker_load`: reading face_landmarker.task and preparing all its models
  /// (detector, landmarks, blendshapes, geometry), as `FaceLandmarker(options:)` does.
  static let pipelineNames = ["detector_image", "landmarker_image", "landmarker_video", "landmarker_load"]
  static var itemNames: [String] { BundledWeights.modelNames + pipelineNames + frameNames }

  @Option(help: "json or text (text on a terminal).")
  var output: OutputFormat?

  @Option(help: "Kernels: optimized, reference or blas.")
  var kernels: Implementation = .optimized

  @Flag(help: "Also print time per operator type for each model.")
  var profile = false

  @Flag(
    help:
      "Also print each operator of each model as it runs (fused ones included): its fastest time over the profiled runs and its shapes."
  )
  var profileNodes = false

  func validate() throws {
    // Threads bounded as the tasks bound them: a pool of a million threads is no benchmark.
    try validateThroughLibrary(.detect) { () throws(VisionTaskError) in try BaseOptions(threadCount: threads).validate()
    }
    guard iterations >= 1, warmup >= 0 else {
      throw ValidationError("--iterations must be at least 1, --warmup at least 0")
    }
    for name in only where !Bench.itemNames.contains(name) {
      throw ValidationError("unknown item '\(name)'; known: \(Bench.itemNames.joined(separator: ", "))")
    }
  }

  func run() throws {
    let format = output ?? .automatic
    let pool = threads > 1 ? ThreadPool(threadCount: threads) : nil
    let names = only.isEmpty ? Bench.itemNames : only
    // The pipeline items' picture, decoded before any timing, so a bad --image fails at once.
    let picture =
      names.contains(where: Bench.pipelineNames.contains)
      ? try MPImage(
        contentsOfFile: image ?? BundledWeights.sampleImage()) : nil
    if format == .text {
      print(
        "kernels \(kernels.rawValue), instruction set \(InstructionSet.active) (CPU and build: "
          + "\(InstructionSet.supported)), GEMM tile rows \(TileHeight.rows(at: .active)), threads \(threads), "
          + "iterations \(iterations), warm-up \(warmup)")
      print("name".padding(toLength: 28, withPad: " ", startingAt: 0) + "     min ms  median ms     p90 ms")
    }
    for name in names {
      if Bench.frameNames.contains(name) {
        report(name, measureFrame(), format)
        continue
      }
      if Bench.pipelineNames.contains(name) {
        let stats = try measurePipeline(name, on: picture!)
        report(name, stats, format)
        continue
      }
      let model = try ModelSource.model(at: BundledWeights.model(named: name))
      let interpreter = try Interpreter(model: model, implementation: kernels, pool: pool)
      for i in interpreter.inputShapes.indices {
        interpreter.withInput(i) { buffer in
          var random = SplitMix64(seed: 42)
          for k in buffer.indices { buffer[k] = random.nextFloat() * 2 - 1 }
        }
      }
      let before = pool?.statistics
      let stats = Timing.measure(warmup: warmup, iterations: iterations) { interpreter.invoke() }
      // With JSON output the profiles are fields of the item's object, so each line stays one
      // JSON object; as text, tables after the item's line.
      let byType = profile ? operatorTimes(interpreter) : nil
      let nodes = profileNodes ? nodeTimes(interpreter) : nil
      var fields: [(String, JSON)] = []
      if let byType {
        fields.append(
          (
            "profile",
            .array(byType.map { .object([("operator", .string($0.op)), ("ms", .double(Self.microseconds($0.ms)))]) })
          ))
      }
      if let nodes {
        fields.append(
          (
            "nodes",
            .array(
              nodes.map {
                .object([
                  ("index", .int($0.index)), ("operator", .string($0.op)),
                  ("us", .double(($0.seconds * 1e8).rounded() / 100)),
                  ("inputs", .array($0.inputs.map(Self.shapeJSON))), ("output", Self.shapeJSON($0.output)),
                ])
              })
          ))
      }
      report(name, stats, format, sharing: pool.map { Sharing($0.statistics, since: before!) }, fields: fields)
      guard format == .text else { continue }
      if let byType {
        let total = byType.reduce(0) { $0 + $1.ms }
        for (op, ms) in byType {
          print(
            "  " + op.padding(toLength: 24, withPad: " ", startingAt: 0)
              + String(format: "%9.3f ms %6.1f%%", ms, 100 * ms / total))
        }
      }
      for node in nodes ?? [] {
        print(
          String(format: "  %4d ", node.index) + node.op.padding(toLength: 20, withPad: " ", startingAt: 0)
            + String(format: "%9.2f us  ", node.seconds * 1e6)
            + "\(node.inputs.map(Self.shapeText).joined(separator: " ")) -> \(Self.shapeText(node.output))")
      }
    }
  }

  /// How a model's parallel tasks were shared while it was timed (warm-up included): a
  /// workers' share far below (threads - 1) / threads means they did not get a core.
  struct Sharing {
    var workerShare: Double
    var moves: Int

    init(_ now: ThreadPool.Statistics, since before: ThreadPool.Statistics) {
      let workers = now.workerTasks - before.workerTasks
      let total = workers + now.callerTasks - before.callerTasks
      workerShare = total > 0 ? Double(workers) / Double(total) : 0
      moves = now.moves - before.moves
    }
  }

  /// Prints an item's timing; `fields` are added to its JSON object.
  private func report(
    _ name: String, _ stats: Timing.Statistics, _ format: OutputFormat, sharing: Sharing? = nil,
    fields extra: [(String, JSON)] = []
  ) {
    if format == .json {
      var fields: [(String, JSON)] = [
        ("name", .string(name)), ("instructionSet", .string(InstructionSet.active.description)),
        ("tileRows", .int(TileHeight.rows(at: .active))), ("threads", .int(threads)), ("iterations", .int(stats.count)),
        // Microseconds are the clock's useful precision: 2.749, not 2.7489980000000003.
        ("minMs", .double(Self.microseconds(stats.min))), ("medianMs", .double(Self.microseconds(stats.median))),
        ("p90Ms", .double(Self.microseconds(stats.p90))),
      ]
      if let sharing {
        fields += [("workerShare", .double(sharing.workerShare)), ("workerMoves", .int(sharing.moves))]
      }
      print(JSON.object(fields + extra))
    } else {
      let share = sharing.map { String(format: "   workers %3.0f%%, moved %d", 100 * $0.workerShare, $0.moves) } ?? ""
      print(
        name.padding(toLength: 28, withPad: " ", startingAt: 0)
          + String(format: "%11.3f%11.3f%11.3f", stats.min, stats.median, stats.p90) + share)
    }
  }

  /// Milliseconds rounded to the microsecond.
  static func microseconds(_ milliseconds: Double) -> Double { (milliseconds * 1000).rounded() / 1000 }

  /// Times a task on an image decoded once beforehand.
  private func measurePipeline(_ name: String, on picture: MPImage) throws -> Timing.Statistics {
    let bundle = try BundledWeights.taskBundle()
    switch name {
    case "landmarker_load":
      let options = FaceLandmarkerOptions(
        baseOptions: BaseOptions(modelAssetPath: bundle, threadCount: threads), outputFaceBlendshapes: true,
        outputFacialTransformationMatrixes: true)
      // At most 50 loads after 2 untimed: each one plans three interpreters.
      return Timing.measure(warmup: min(warmup, 2), iterations: min(iterations, 50)) {
        _ = try? FaceLandmarker(options: options)
      }
    case "landmarker_image", "landmarker_video":
      // One face, blendshapes and transformation matrices on, as MediaPipe is timed.
      let options = FaceLandmarkerOptions(
        baseOptions: BaseOptions(modelAssetPath: bundle, threadCount: threads), outputFaceBlendshapes: true,
        outputFacialTransformationMatrixes: true)
      if name == "landmarker_image" {
        let landmarker = try FaceLandmarker(options: options)
        return Timing.measure(warmup: warmup, iterations: iterations) { _ = try? landmarker.detect(image: picture) }
      }
      // Video: the pan sequence beside the weights played forward and backward, frame k at
      // round(k·1000/30) ms, as Benchmarks/compare.py plays it to MediaPipe.
      options.runningMode = .video
      let landmarker = try FaceLandmarker(options: options)
      let folder = try BundledWeights.panFrames()
      let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".jpg") }.sorted()
      let frames = try names.map { try MPImage(contentsOfFile: folder + "/" + $0) }
      let cycle = Array(frames.indices) + Array(stride(from: frames.count - 2, to: 0, by: -1))
      var k = 0
      return Timing.measure(warmup: warmup, iterations: iterations) {
        _ = try? landmarker.detect(
          videoFrame: frames[cycle[k % cycle.count]], timestampInMilliseconds: Int((Double(k) * 1000 / 30).rounded()))
        k += 1
      }
    default:  // detector_image
      let detector = try FaceDetector(
        options: FaceDetectorOptions(
          baseOptions: BaseOptions(modelAssetPath: BundledWeights.model(named: "face_detector"), threadCount: threads)))
      return Timing.measure(warmup: warmup, iterations: iterations) { _ = try? detector.detect(image: picture) }
    }
  }

  /// Milliseconds per operator type, averaged over up to 50 profiled runs, most first.
  private func operatorTimes(_ interpreter: Interpreter) -> [(op: String, ms: Double)] {
    var byType: [String: Double] = [:]
    let rounds = max(1, min(iterations, 50))
    for _ in 0..<rounds {
      for (node, seconds) in zip(interpreter.graph.nodes, interpreter.profile()) {
        byType[node.op.name, default: 0] += seconds * 1000 / Double(rounds)
      }
    }
    return byType.sorted(by: { $0.value > $1.value }).map { ($0.key, $0.value) }
  }
}

extension Bench {
  /// One line per node in execution order: index, operator, the minimum over profiled runs
  /// (the least disturbed by other processes), and its input and output shapes.
  fileprivate func nodeTimes(_ interpreter: Interpreter) -> [(
    index: Int, op: String, seconds: Double, inputs: [Shape?], output: Shape?
  )] {
    let nodes = interpreter.graph.nodes
    var fastest = [Double](repeating: .infinity, count: nodes.count)
    for _ in 0..<max(1, min(iterations, 200)) {
      for (i, seconds) in interpreter.profile().enumerated() { fastest[i] = min(fastest[i], seconds) }
    }
    return nodes.enumerated().map { i, node in
      // Constants (filters, biases) are left out: the activations say what the node did.
      let inputs = node.inputs.filter { interpreter.graph.constants[$0] == nil }.map { interpreter.shapes[$0] }
      return (i, node.op.name, fastest[i], inputs, interpreter.shapes[node.output])
    }
  }

  /// A node's shape as `--profile-nodes` writes it, `?` when the interpreter does not know it.
  fileprivate static func shapeText(_ shape: Shape?) -> String { shape.map { "\($0)" } ?? "?" }
  fileprivate static func shapeJSON(_ shape: Shape?) -> JSON {
    shape.map { .array($0.dimensions.map(JSON.int)) } ?? .null
  }
}

/// Warm-up, then timed runs of a closure.
enum Timing {
  /// Minimum, median and 90th percentile, in milliseconds.
  struct Statistics {
    var min: Double
    var median: Double
    var p90: Double
    /// Timed runs.
    var count: Int
  }

  static func measure(warmup: Int, iterations: Int, _ body: () -> Void) -> Statistics {
    for _ in 0..<warmup { body() }
    let clock = ContinuousClock()
    var times: [Double] = []
    times.reserveCapacity(iterations)
    for _ in 0..<iterations {
      let d = clock.measure(body)
      times.append(Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) * 1e-15)
    }
    times.sort()
    let p90Index = Int((0.9 * Double(times.count)).rounded(.up)) - 1
    return Statistics(min: times[0], median: times[times.count / 2], p90: times[max(0, p90Index)], count: times.count)
  }
}
