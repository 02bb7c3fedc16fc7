import ArgumentParser
import Foundation
import VisageRuntime
import VisageTFLite

struct Inspect: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show what is inside a model: inputs, outputs, operators, tensors, weights and work.",
    discussion: """
      Examples:
        visage inspect Weights/face_detection_full_range.tflite
        visage inspect Weights/face_landmarker.task:face_landmarks_detector.tflite --output json
        visage inspect Weights/face_landmarker.task        (lists the bundle's entries)
      """)

  @Argument(help: "A .tflite file, a .task bundle, or bundle.task:entry.tflite.")
  var model: String

  @Option(help: "json or text (text on a terminal).")
  var output: OutputFormat?

  func run() throws {
    let format = output ?? .automatic
    let shown = BytePath(model).description
    if model.hasSuffix(".task") {
      let bundle = try TaskBundle(bytes: ModelSource.bytes(ofFile: model))
      let entries = bundle.entries.map { JSON.object([("name", .string($0.name)), ("bytes", .int($0.size))]) }
      if format == .json {
        print(JSON.object([("bundle", BytePath(model).json), ("entries", .array(entries))]))
      } else {
        print("bundle: \(shown)")
        for entry in bundle.entries { print("  \(entry.name)  \(entry.size) bytes") }
      }
      return
    }
    let loaded = try ModelSource.model(at: model)
    let interpreter = try Interpreter(model: loaded)
    let graph = loaded.graph
    // The interpreter's graph is the one that runs (activations folded into convolutions),
    // so its nodes are the ones whose input shapes are all known.
    let macs = interpreter.graph.nodes.reduce(0) { total, node in
      total + node.op.multiplyAdds(node.inputs.map { interpreter.shapes[$0]! })
    }
    func tensors(_ ids: [Int]) -> [JSON] {
      ids.map {
        .object([
          ("name", .string(graph.tensors[$0].name)),
          ("shape", .array(interpreter.shapes[$0]!.dimensions.map(JSON.int))),
        ])
      }
    }
    let ops = loaded.operatorCounts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
    let types = loaded.tensorTypeCounts.sorted { $0.key < $1.key }
    if format == .json {
      print(
        JSON.object([
          ("model", BytePath(model).json), ("description", .string(loaded.modelDescription)),
          ("inputs", .array(tensors(graph.inputs))), ("outputs", .array(tensors(graph.outputs))),
          ("operators", .object(ops.map { ($0.key, .int($0.value)) })),
          ("tensors", .object(types.map { ($0.key, .int($0.value)) })),
          ("weightBytes", .int(loaded.weightBytes)), ("multiplyAdds", .int(macs)),
        ]))
      return
    }
    print("model: \(shown)")
    if !loaded.modelDescription.isEmpty { print("description: \(loaded.modelDescription)") }
    for (title, ids) in [("inputs", graph.inputs), ("outputs", graph.outputs)] {
      print("\(title):")
      for id in ids { print("  \(graph.tensors[id].name)  \(interpreter.shapes[id]!)") }
    }
    print(
      "operators (\(ops.reduce(0) { $0 + $1.value })): " + ops.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    print(
      "tensors (\(types.reduce(0) { $0 + $1.value })): " + types.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    )
    print("weights: \(loaded.weightBytes) bytes")
    print(String(format: "multiply-adds: %.1f M", Double(macs) / 1e6))
  }
}
