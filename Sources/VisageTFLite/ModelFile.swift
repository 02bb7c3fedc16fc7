import VisageKernels
import VisageRuntime

/// What the loader reads out of a `.tflite` flatbuffer before building a graph.
struct ModelFile {
  /// One tensor as the file declares it.
  struct TensorEntry {
    var name: String
    var shape: [Int]
    var type: TensorType
    /// The constant's bytes in the file, if it has any.
    var data: Range<Int>?
    var path: String
  }

  /// One operator as the file declares it.
  struct OperatorEntry {
    var code: BuiltinOperator
    var inputs: [Int]
    var outputs: [Int]
    var options: FlatTable?
    var path: String
  }

  let bytes: [UInt8]
  var description: String
  var tensors: [TensorEntry] = []
  var operators: [OperatorEntry] = []
  var inputs: [Int]
  var outputs: [Int]
  var metadataNames: [String]

  /// Reads the model table, the first subgraph, its tensors and operators.
  init(bytes: [UInt8]) throws(TFLiteError) {
    self.bytes = bytes
    guard bytes.count >= 8 else {
      throw .malformed(path: "file", reason: "\(bytes.count) bytes is too short for a TFLite model")
    }
    guard bytes[4..<8].elementsEqual("TFL3".utf8) else {
      throw .malformed(path: "file", reason: "no TFL3 identifier at byte 4; this is not a TFLite flatbuffer")
    }
    let buffer = FlatBuffer(bytes: bytes)
    let model = try buffer.root(path: "model")
    let version = try model.scalar(0, "version", default: UInt32(0))
    guard version == 3 else {
      throw .unsupported(path: "model.version", reason: "schema version \(version); only version 3 is read")
    }
    description = try model.string(3, "description") ?? ""
    metadataNames = try model.tables(6, "metadata").map { (m: FlatTable) throws(TFLiteError) in
      try m.string(0, "name") ?? ""
    }

    let codes = try model.tables(1, "operator_codes").map { (code: FlatTable) throws(TFLiteError) -> BuiltinOperator in
      // Codes above 127 live in the int32 field; older files only fill the byte field.
      let deprecated = Int(try code.scalar(0, "deprecated_builtin_code", default: Int8(0)))
      let builtin = Int(try code.scalar(3, "builtin_code", default: Int32(0)))
      return BuiltinOperator(code: max(deprecated, builtin))
    }
    let buffers = try model.tables(4, "buffers").map { (table: FlatTable) throws(TFLiteError) -> Range<Int>? in
      if let range = try table.byteRange(0, "data"), !range.isEmpty { return range }
      // Models over 2 GB keep buffers after the flatbuffer, addressed by offset and size.
      let offset = try table.scalar(1, "offset", default: UInt64(0))
      let size = try table.scalar(2, "size", default: UInt64(0))
      guard offset > 1, size > 0 else { return nil }
      guard offset < UInt64(bytes.count), size <= UInt64(bytes.count) - offset else {
        throw .malformed(path: table.path, reason: "external buffer \(offset)+\(size) lies outside the file")
      }
      return Int(offset)..<Int(offset + size)
    }
    let subgraphs = try model.tables(2, "subgraphs")
    guard let graph = subgraphs.first else {
      throw .malformed(path: "model.subgraphs", reason: "the model has no subgraph")
    }
    let tensorTables = try graph.tables(0, "tensors")
    for table in tensorTables {
      tensors.append(try Self.tensor(table, buffers: buffers))
    }
    func checkIndices(_ list: [Int], _ path: String, optional: Bool) throws(TFLiteError) {
      for (k, index) in list.enumerated() where !(optional && index == -1) {
        guard index >= 0, index < tensorTables.count else {
          throw .malformed(
            path: "\(path)[\(k)]", reason: "tensor index \(index) is out of range 0..<\(tensorTables.count)")
        }
      }
    }
    inputs = try graph.int32s(1, "inputs") ?? []
    outputs = try graph.int32s(2, "outputs") ?? []
    try checkIndices(inputs, "\(graph.path).inputs", optional: false)
    try checkIndices(outputs, "\(graph.path).outputs", optional: false)
    for table in try graph.tables(3, "operators") {
      let index = Int(try table.scalar(0, "opcode_index", default: UInt32(0)))
      guard index < codes.count else {
        throw .malformed(
          path: "\(table.path).opcode_index", reason: "opcode \(index) is out of range 0..<\(codes.count)")
      }
      let entry = OperatorEntry(
        code: codes[index], inputs: try table.int32s(1, "inputs") ?? [],
        outputs: try table.int32s(2, "outputs") ?? [], options: try table.table(4, "builtin_options"),
        path: table.path)
      try checkIndices(entry.inputs, "\(table.path).inputs", optional: true)
      try checkIndices(entry.outputs, "\(table.path).outputs", optional: false)
      operators.append(entry)
    }
  }

  private static func tensor(_ table: FlatTable, buffers: [Range<Int>?]) throws(TFLiteError) -> TensorEntry {
    let rawType = Int(try table.scalar(1, "type", default: Int8(0)))
    guard let type = TensorType(rawValue: rawType) else {
      throw .unsupported(path: "\(table.path).type", reason: "tensor type \(rawType)")
    }
    if try table.table(6, "sparsity") != nil {
      throw .unsupported(path: "\(table.path).sparsity", reason: "sparse tensors")
    }
    let shape = try table.int32s(0, "shape") ?? []
    let bufferIndex = Int(try table.scalar(2, "buffer", default: UInt32(0)))
    guard bufferIndex < max(buffers.count, 1) else {
      throw .malformed(
        path: "\(table.path).buffer", reason: "buffer \(bufferIndex) is out of range 0..<\(buffers.count)")
    }
    let data = bufferIndex == 0 || buffers.isEmpty ? nil : buffers[bufferIndex]
    let entry = TensorEntry(
      name: try table.string(3, "name") ?? "", shape: shape, type: type, data: data, path: table.path)
    if let data {
      guard let count = Shape(shape).checkedCount,
        count.multipliedReportingOverflow(by: type.size) == (data.count, false)
      else {
        throw .malformed(
          path: "\(table.path).buffer",
          reason: "\(data.count) bytes of data for a \(type.name) tensor of shape \(Shape(shape))")
      }
    }
    return entry
  }

  /// The constant values of tensor `index` as floats (FLOAT32, or FLOAT16 widened).
  func floats(_ index: Int) -> [Float]? {
    let t = tensors[index]
    guard let data = t.data else { return nil }
    switch t.type {
    case .float32:
      return bytes.withUnsafeBytes { raw in
        [Float](unsafeUninitializedCapacity: data.count / 4) { values, initialized in
          for k in 0..<(data.count / 4) {
            values[k] = Float(
              bitPattern: UInt32(
                littleEndian: raw.loadUnaligned(fromByteOffset: data.lowerBound + 4 * k, as: UInt32.self)))
          }
          initialized = data.count / 4
        }
      }
    case .float16:
      return bytes.withUnsafeBytes { raw in
        [Float](unsafeUninitializedCapacity: data.count / 2) { values, initialized in
          Half.floats(
            fromLittleEndian: raw.baseAddress! + data.lowerBound, count: data.count / 2, into: values.baseAddress!)
          initialized = data.count / 2
        }
      }
    default:
      return nil
    }
  }

  /// The constant values of an INT32 tensor.
  func ints(_ index: Int) -> [Int]? {
    let t = tensors[index]
    guard t.type == .int32, let data = t.data else { return nil }
    return bytes.withUnsafeBytes { raw in
      stride(from: data.lowerBound, to: data.upperBound - 3, by: 4).map { offset in
        Int(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
      }
    }
  }
}
