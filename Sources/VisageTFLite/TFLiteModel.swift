import VisageKernels
import VisageRuntime

/// A `.tflite` model read into a runtime graph, with what `inspect` reports about it.
///
/// Every fp16 constant feeding DEQUANTIZE becomes a float32 constant and every INT32
/// parameter tensor becomes an operator field, so the graph is float32 throughout.
public struct TFLiteModel: Sendable {
  /// The float32 graph of the first subgraph.
  public let graph: Graph
  /// The model's description string.
  public let modelDescription: String
  /// Names of the metadata entries (such as `TFLITE_METADATA`).
  public let metadataNames: [String]
  /// How many times each builtin operator occurs in the file, DEQUANTIZE included.
  public let operatorCounts: [String: Int]
  /// How many tensors of each type the file declares.
  public let tensorTypeCounts: [String: Int]
  /// Bytes of constant data in the file.
  public let weightBytes: Int

  /// Where the graph was cut short: the first operator the runtime cannot run, when the
  /// model was read for a partial tensor dump (`TensorDump`); nil when it holds every operator.
  let stop: (operatorIndex: Int, error: TFLiteError)?

  /// Reads a model from its flatbuffer bytes.
  public init(bytes: [UInt8]) throws(TFLiteError) {
    try self.init(file: ModelFile(bytes: bytes), stoppingAtUnsupported: false)
  }

  /// Reads the model in `file`. With `stoppingAtUnsupported`, an operator or tensor type the
  /// runtime does not support ends the graph there (recorded in `stop`, the outputs written
  /// before it kept) instead of failing; a malformed file fails either way.
  init(file: ModelFile, stoppingAtUnsupported: Bool) throws(TFLiteError) {
    modelDescription = file.description
    metadataNames = file.metadataNames
    operatorCounts = file.operators.reduce(into: [:]) { $0[$1.code.description, default: 0] += 1 }
    tensorTypeCounts = file.tensors.reduce(into: [:]) { $0[$1.type.name, default: 0] += 1 }
    weightBytes = file.tensors.reduce(0) { $0 + ($1.data?.count ?? 0) }

    var constants: [Int: Tensor] = [:]
    for (index, tensor) in file.tensors.enumerated() where tensor.type == .float32 && tensor.data != nil {
      constants[index] = try? Tensor(shape: Shape(tensor.shape), values: file.floats(index)!)
    }
    var nodes: [Node] = []
    var stop: (operatorIndex: Int, error: TFLiteError)?
    for (index, entry) in file.operators.enumerated() {
      do throws(TFLiteError) {
        if let node = try Self.node(entry, file, constants: &constants) { nodes.append(node) }
      } catch {
        guard stoppingAtUnsupported, error.isUnsupported else { throw error }
        stop = (index, error)
        break
      }
    }
    self.stop = stop
    let infos = file.tensors.map { TensorInfo(name: $0.name, shape: Shape($0.shape)) }
    // A graph cut short keeps the outputs it still writes.
    let written = Set(nodes.map(\.output)).union(file.inputs).union(constants.keys)
    graph = Graph(
      tensors: infos, constants: constants, nodes: nodes, inputs: file.inputs,
      outputs: stop == nil ? file.outputs : file.outputs.filter(written.contains))
  }

  /// The graph node for one operator, or nil for a DEQUANTIZE, which is folded into
  /// `constants` instead.
  private static func node(
    _ entry: ModelFile.OperatorEntry, _ file: ModelFile, constants: inout [Int: Tensor]
  ) throws(TFLiteError) -> Node? {
    guard entry.outputs.count == 1 else {
      throw .unsupported(path: "\(entry.path).outputs", reason: "\(entry.code) with \(entry.outputs.count) outputs")
    }
    let output = entry.outputs[0]
    guard file.tensors[output].type == .float32 else {
      throw .unsupported(
        path: "\(entry.path).outputs[0]",
        reason: "tensor \(output) has type \(file.tensors[output].type.name); only FLOAT32 activations are supported")
    }
    if entry.code == .dequantize {
      constants[output] = try Self.fold(entry, file)
      return nil
    }
    guard let decode = decoders[entry.code] else {
      throw .unsupportedOperator(name: entry.code.description, location: entry.path)
    }
    let decoded = try decode(OperatorRecord(entry: entry, file: file))
    for id in decoded.inputs where file.tensors[id].type != .float32 {
      let k = entry.inputs.firstIndex(of: id) ?? 0
      throw .unsupported(
        path: "\(entry.path).inputs[\(k)]",
        reason: "tensor \(id) has type \(file.tensors[id].type.name) where \(entry.code) needs FLOAT32")
    }
    return Node(op: decoded.op, inputs: decoded.inputs, output: output, location: entry.path)
  }

  /// DEQUANTIZE of a constant: widen fp16 (or copy float32) once, at load.
  private static func fold(_ entry: ModelFile.OperatorEntry, _ file: ModelFile) throws(TFLiteError) -> Tensor {
    guard let input = entry.inputs.first, input >= 0, let values = file.floats(input) else {
      throw .unsupported(
        path: "\(entry.path).inputs[0]", reason: "DEQUANTIZE is supported for constant FLOAT16 tensors only")
    }
    guard file.tensors[entry.outputs[0]].shape == file.tensors[input].shape else {
      throw .malformed(path: "\(entry.path).outputs[0]", reason: "DEQUANTIZE changes the shape")
    }
    do {
      return try Tensor(shape: Shape(file.tensors[input].shape), values: values)
    } catch {
      throw .invalidGraph(error)
    }
  }

  /// Names of the graph's input tensors.
  public var inputNames: [String] { graph.inputs.map { graph.tensors[$0].name } }
  /// Names of the graph's output tensors.
  public var outputNames: [String] { graph.outputs.map { graph.tensors[$0].name } }
}

extension Interpreter {
  /// Prepares `model` for running, reporting graph problems as `TFLiteError.invalidGraph`.
  public convenience init(
    model: TFLiteModel, implementation: Implementation = .optimized, preservingAllTensors: Bool = false,
    pool: ThreadPool? = nil
  ) throws(TFLiteError) {
    do {
      try self.init(
        graph: model.graph, implementation: implementation, preservingAllTensors: preservingAllTensors, pool: pool)
    } catch {
      throw .invalidGraph(error)
    }
  }
}
