import FuzzDriver
import VisageRuntime
import VisageTFLite

/// A `.tflite` flatbuffer: parsed into a graph, checked and planned by the interpreter, then
/// run once on zeros; and read for a tensor dump (`visage run --dump-tensors`: up to an
/// unsupported operator), run unfused, and every tensor's file made. Graphs whose activations
/// exceed 4M values are built but not run: an inference on them is legitimate and only slow,
/// which would starve the search.
public func fuzzModel(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
  func small(_ interpreter: Interpreter) -> Bool {
    interpreter.shapes.reduce(0) { $0 + $1.value.count } <= 1 << 22
  }
  // A fresh interpreter's inputs are zeros.
  if let model = try? TFLiteModel(bytes: bytes), let interpreter = try? Interpreter(graph: model.graph),
    small(interpreter)
  {
    interpreter.invoke()
  }
  if let dump = try? TensorDump(modelBytes: bytes),
    let unfused = try? Interpreter(model: dump.model, preservingAllTensors: true), small(unfused)
  {
    unfused.invoke()
    for entry in dump.entries where dump.npy(of: entry, from: unfused) == nil {
      fatalError("tensor \(entry.index) of a dump has no file")
    }
  }
  return 0
}

@main enum Harness {
  static func main() { runLibFuzzer(fuzzModel) }
}
