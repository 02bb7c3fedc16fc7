import VisageRuntime

/// Every tensor of a model, in execution order, ready to be written as `.npy` files after a
/// run: the layout `visage run --dump-tensors` and `Tools/litert_dump.py` write and
/// `visage compare` reads (docs/validation.md).
///
/// The order is the model's inputs, then each operator in the file's order: first the
/// constants it reads that are not listed yet, then what it writes. Constants no operator
/// reads come last. A model with an operator the runtime cannot run is read up to that
/// operator (`stop`), so what comes before it can still be dumped.
public struct TensorDump: Sendable {
  /// One tensor of the dump.
  public struct Entry: Sendable, Equatable {
    /// The tensor's index in the model file.
    public var index: Int
    /// The tensor's name in the model file.
    public var name: String
    /// The dimensions.
    public var shape: [Int]
    /// The NumPy dtype of its file: `<f4` for inputs and computed tensors; a constant keeps
    /// the type the model stores (`<f2` weights, `<i4` shapes).
    public var dtype: String
    /// The file name: the index, zero-padded to four digits, and the name made safe.
    public var file: String
    /// The operator that writes it; nil for inputs and constants.
    public var producer: Producer?

    /// An entry with the given fields (a dump's manifest read back, as `visage compare` does).
    public init(index: Int, name: String, shape: [Int], dtype: String, file: String, producer: Producer?) {
      (self.index, self.name, self.shape, self.dtype, self.file, self.producer) =
        (index, name, shape, dtype, file, producer)
    }
  }

  /// An operator as a dump names it.
  public struct Producer: Sendable, Equatable {
    /// The operator's index in the file (`subgraphs[0].operators[index]`).
    public var index: Int
    /// The builtin operator's schema name, such as `CONV_2D`.
    public var type: String
    /// The tensors it reads, in its order (optional inputs left out).
    public var inputs: [Int]

    /// An operator at `index` of `type` reading `inputs`.
    public init(index: Int, type: String, inputs: [Int]) {
      self.index = index
      self.type = type
      self.inputs = inputs
    }
  }

  /// The first operator the runtime cannot run, where a partial dump ends.
  public struct Stop: Sendable, Equatable {
    /// The operator's index in the file.
    public var index: Int
    /// The builtin operator's schema name.
    public var type: String
    /// Why it cannot run.
    public var reason: String

    /// The stop at operator `index` of `type`, for `reason`.
    public init(index: Int, type: String, reason: String) {
      self.index = index
      self.type = type
      self.reason = reason
    }
  }

  /// The runnable graph: the whole model, or the operators before `stop`. Run it unfused
  /// (`preservingAllTensors: true`) so that every tensor keeps its value.
  public let model: TFLiteModel
  /// Where the graph ends early, if it does.
  public let stop: Stop?
  /// Every tensor to write, in execution order.
  public let entries: [Entry]
  private let file: ModelFile

  /// Reads a model's flatbuffer bytes for dumping.
  ///
  /// - Throws: `TFLiteError` for a malformed file; an unsupported operator or type is not an
  ///   error here but the `stop`.
  public init(modelBytes: [UInt8]) throws(TFLiteError) {
    let file = try ModelFile(bytes: modelBytes)
    let model = try TFLiteModel(file: file, stoppingAtUnsupported: true)
    stop = model.stop.map { stop in
      Stop(
        index: stop.operatorIndex, type: file.operators[stop.operatorIndex].code.description,
        reason: stop.error.description)
    }
    entries = Self.entries(of: file, upTo: model.stop?.operatorIndex ?? file.operators.count)
    self.file = file
    self.model = model
  }

  private static func entries(of file: ModelFile, upTo end: Int) -> [Entry] {
    var listed = Set<Int>()
    var result: [Entry] = []
    let digits = max(4, String(file.tensors.count - 1).count)
    func add(_ id: Int, _ producer: Producer?) {
      let tensor = file.tensors[id]
      guard !listed.contains(id), let dtype = dtype(of: tensor, computed: producer != nil || tensor.data == nil)
      else { return }
      listed.insert(id)
      let number = String(id)
      let file =
        String(repeating: "0", count: max(0, digits - number.count)) + number + "_" + safe(tensor.name) + ".npy"
      result.append(
        Entry(index: id, name: tensor.name, shape: tensor.shape, dtype: dtype, file: file, producer: producer))
    }
    for id in file.inputs { add(id, nil) }
    for (k, op) in file.operators.prefix(end).enumerated() {
      let inputs = op.inputs.filter { $0 >= 0 }
      for id in inputs where file.tensors[id].data != nil { add(id, nil) }
      for id in op.outputs { add(id, Producer(index: k, type: op.code.description, inputs: inputs)) }
    }
    for id in file.tensors.indices where file.tensors[id].data != nil { add(id, nil) }
    return result
  }

  /// The dtype a tensor is dumped as: float32 when the runtime computes it, else the stored
  /// type; nil for types NumPy files here do not carry (strings, complex numbers).
  private static func dtype(of tensor: ModelFile.TensorEntry, computed: Bool) -> String? {
    if computed { return "<f4" }
    switch tensor.type {
    case .float32: return "<f4"
    case .float16: return "<f2"
    case .float64: return "<f8"
    case .int8: return "|i1"
    case .uint8: return "|u1"
    case .bool: return "|b1"
    case .int16: return "<i2"
    case .int32: return "<i4"
    case .int64: return "<i8"
    case .string, .complex64: return nil
    }
  }

  /// A name safe in any file system: ASCII letters, digits, `.`, `-` and `_` kept, every run
  /// of other characters made one `_` (so `a_/b` is `a__b`), at most 80 characters.
  private static func safe(_ name: String) -> String {
    var out = ""
    var replacing = false
    for scalar in name.unicodeScalars {
      let kept =
        scalar.isASCII
        && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
      if kept {
        out.unicodeScalars.append(scalar)
      } else if !replacing {
        out += "_"
      }
      replacing = !kept
    }
    return String(out.prefix(80))
  }

  /// The `.npy` file of `entry`: a constant's bytes as the model stores them, anything
  /// computed as `interpreter` holds it after a run; nil when the interpreter does not hold
  /// it (an interpreter made from another graph).
  ///
  /// `interpreter` must be made from `model` with `preservingAllTensors: true` (nil otherwise:
  /// intermediates would share memory, or fusion would have removed them) and have run.
  public func npy(of entry: Entry, from interpreter: Interpreter) -> [UInt8]? {
    let tensor = file.tensors[entry.index]
    if entry.producer == nil, let data = tensor.data {
      // The loader checked that the data fills the shape, so this does not fail.
      return try? NPYArray.npy(descr: entry.dtype, shape: entry.shape, data: file.bytes[data])
    }
    guard interpreter.preservesAllTensors, let value = interpreter.value(ofTensor: entry.index) else { return nil }
    return value.npy
  }
}
