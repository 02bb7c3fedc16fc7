import FuzzDriver
import VisageRuntime
import VisageTFLite

/// A `.tflite` flatbuffer: parsed into a graph, checked and planned by the interpreter, then
/// run once on zeros. Graphs whose activations exceed 4M values are built but not run: an
/// inference on them is legitimate and only slow, which would starve the search.
public func fuzzModel(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
  guard let model = try? TFLiteModel(bytes: bytes),
    let interpreter = try? Interpreter(graph: model.graph)
  else { return 0 }
  let activations = interpreter.shapes.reduce(0) { $0 + $1.value.count }
  guard activations <= 1 << 22 else { return 0 }
  // A fresh interpreter's inputs are zeros.
  interpreter.invoke()
  return 0
}

@main enum Harness {
  static func main() { runLibFuzzer(fuzzModel) }
}
