/// A small `.tflite` model described in Swift and written with `FlatBufferBuilder`.
///
/// Follows TFLite's schema.fbs (version 3): Model {0 version, 1 operator_codes,
/// 2 subgraphs, 3 description, 4 buffers}, OperatorCode {0 deprecated_builtin_code,
/// 3 builtin_code}, SubGraph {0 tensors, 1 inputs, 2 outputs, 3 operators, 4 name},
/// Tensor {0 shape, 1 type, 2 buffer, 3 name}, Operator {0 opcode_index, 1 inputs,
/// 2 outputs, 3 builtin_options_type, 4 builtin_options}, Buffer {0 data}. Buffer 0 is the
/// empty buffer, as converters write it; every tensor with data gets a buffer of its own.
public struct TinyModel: Sendable {
  /// TFLite `BuiltinOperator` codes used by the tests.
  public enum Builtin {
    public static let add: Int32 = 0
    public static let conv2D: Int32 = 3
    public static let depthwiseConv2D: Int32 = 4
    public static let dequantize: Int32 = 6
    public static let maxPool2D: Int32 = 17
    public static let mul: Int32 = 18
    public static let relu: Int32 = 19
    public static let reshape: Int32 = 22
    public static let resizeBilinear: Int32 = 23
    public static let softmax: Int32 = 25
    public static let tanh: Int32 = 28
    public static let batchMatmul: Int32 = 126
  }

  /// TFLite `TensorType` values.
  public enum TensorType {
    public static let float32: Int8 = 0
    public static let float16: Int8 = 1
    public static let int32: Int8 = 2
    public static let uint8: Int8 = 3
  }

  /// TFLite `BuiltinOptions` union tags used by the tests.
  public enum OptionsType {
    public static let conv2D: UInt8 = 1
    public static let add: UInt8 = 11
    public static let resizeBilinear: UInt8 = 15
  }

  /// One tensor of the subgraph.
  public struct TensorSpec: Sendable {
    public var shape: [Int32]
    public var type: Int8
    public var name: String
    /// Constant bytes, or nil for an activation.
    public var data: [UInt8]?
    /// A buffer index to write instead of the one the builder assigns.
    public var bufferOverride: UInt32?

    public init(shape: [Int32], type: Int8, name: String, data: [UInt8]? = nil) {
      self.shape = shape
      self.type = type
      self.name = name
      self.data = data
    }

    /// A float32 activation.
    public static func float(_ shape: [Int32], _ name: String) -> TensorSpec {
      TensorSpec(shape: shape, type: TensorType.float32, name: name)
    }

    /// A float32 constant.
    public static func float(_ shape: [Int32], _ name: String, values: [Float]) -> TensorSpec {
      TensorSpec(shape: shape, type: TensorType.float32, name: name, data: littleEndian(values.map(\.bitPattern)))
    }

    /// An int32 constant.
    public static func int32(_ shape: [Int32], _ name: String, values: [Int32]) -> TensorSpec {
      TensorSpec(
        shape: shape, type: TensorType.int32, name: name,
        data: littleEndian(values.map { UInt32(bitPattern: $0) }))
    }

    /// A float16 constant given as bit patterns.
    public static func float16(_ shape: [Int32], _ name: String, bits: [UInt16]) -> TensorSpec {
      TensorSpec(
        shape: shape, type: TensorType.float16, name: name,
        data: bits.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
    }
  }

  /// One operator of the subgraph.
  public struct OperatorSpec: Sendable {
    public var opcodeIndex: UInt32
    public var inputs: [Int32]
    public var outputs: [Int32]
    public var optionsType: UInt8
    public var options: FlatTableValue?

    public init(
      opcodeIndex: UInt32, inputs: [Int32], outputs: [Int32], optionsType: UInt8 = 0,
      options: FlatTableValue? = nil
    ) {
      self.opcodeIndex = opcodeIndex
      self.inputs = inputs
      self.outputs = outputs
      self.optionsType = optionsType
      self.options = options
    }
  }

  public var version: UInt32 = 3
  /// Builtin codes; an operator's `opcodeIndex` indexes this list.
  public var operatorCodes: [Int32]
  public var tensors: [TensorSpec]
  public var inputs: [Int32]
  public var outputs: [Int32]
  public var operators: [OperatorSpec]
  public var description = "Visage test model"

  /// Creates a one-subgraph model.
  public init(
    operatorCodes: [Int32], tensors: [TensorSpec], inputs: [Int32], outputs: [Int32],
    operators: [OperatorSpec]
  ) {
    self.operatorCodes = operatorCodes
    self.tensors = tensors
    self.inputs = inputs
    self.outputs = outputs
    self.operators = operators
  }

  /// The model as a table tree, for tests that want to damage it before writing.
  public var root: FlatTableValue {
    var buffers: [FlatTableValue] = [[:]]
    var tensorTables: [FlatTableValue] = []
    for tensor in tensors {
      var table: FlatTableValue = [
        0: .int32s(tensor.shape), 1: .int8(tensor.type), 3: .string(tensor.name),
      ]
      if let data = tensor.data {
        table[2] = .uint32(UInt32(buffers.count))
        buffers.append([0: .bytes(data)])
      }
      if let index = tensor.bufferOverride { table[2] = .uint32(index) }
      tensorTables.append(table)
    }
    let operatorTables = operators.map { op -> FlatTableValue in
      var table: FlatTableValue = [0: .uint32(op.opcodeIndex), 1: .int32s(op.inputs), 2: .int32s(op.outputs)]
      if let options = op.options {
        table[3] = .uint8(op.optionsType)
        table[4] = .table(options)
      }
      return table
    }
    let codes = operatorCodes.map { code -> FlatTableValue in
      [0: .int8(Int8(clamping: code)), 3: .int32(code)]
    }
    let subgraph: FlatTableValue = [
      0: .tables(tensorTables), 1: .int32s(inputs), 2: .int32s(outputs), 3: .tables(operatorTables),
      4: .string("main"),
    ]
    return [
      0: .uint32(version), 1: .tables(codes), 2: .tables([subgraph]), 3: .string(description),
      4: .tables(buffers),
    ]
  }

  /// The `.tflite` bytes.
  public var bytes: [UInt8] { Self.serialize(root) }

  /// Writes a (possibly damaged) model table tree with the TFL3 identifier.
  public static func serialize(_ root: FlatTableValue) -> [UInt8] {
    FlatBufferBuilder.serialize(root: root, fileIdentifier: "TFL3")
  }

  /// A model applying one builtin with no options to one float input of `shape`.
  public static func unary(_ code: Int32, shape: [Int32]) -> TinyModel {
    TinyModel(
      operatorCodes: [code], tensors: [.float(shape, "x"), .float(shape, "y")], inputs: [0],
      outputs: [1], operators: [OperatorSpec(opcodeIndex: 0, inputs: [0], outputs: [1])])
  }

  /// `y = activation(x + constant)`, with `constant` broadcast against `shape`.
  public static func add(
    shape: [Int32], constantShape: [Int32], constant: [Float], fusedActivation: Int8 = 0
  ) -> TinyModel {
    TinyModel(
      operatorCodes: [Builtin.add],
      tensors: [.float(shape, "x"), .float(constantShape, "c", values: constant), .float(shape, "y")],
      inputs: [0], outputs: [2],
      operators: [
        OperatorSpec(
          opcodeIndex: 0, inputs: [0, 1], outputs: [2], optionsType: OptionsType.add,
          options: [0: .int8(fusedActivation)])
      ])
  }

  /// `y = x + c`, then a SOFTMAX the runtime does not implement, then `w = z + c`: a model
  /// that runs up to its second operator, for partial tensor dumps.
  public static var stopsAtSoftmax: TinyModel {
    TinyModel(
      operatorCodes: [Builtin.add, Builtin.softmax],
      tensors: [
        .float([4], "x"), .float([4], "c", values: [1, 2, 3, 4]), .float([4], "y"), .float([4], "z"), .float([4], "w"),
      ],
      inputs: [0], outputs: [4],
      operators: [
        OperatorSpec(
          opcodeIndex: 0, inputs: [0, 1], outputs: [2], optionsType: OptionsType.add, options: [0: .int8(0)]),
        OperatorSpec(opcodeIndex: 1, inputs: [2], outputs: [3]),
        OperatorSpec(
          opcodeIndex: 0, inputs: [3, 1], outputs: [4], optionsType: OptionsType.add, options: [0: .int8(0)]),
      ])
  }

  private static func littleEndian(_ words: [UInt32]) -> [UInt8] {
    words.flatMap { w in (0..<4).map { UInt8(truncatingIfNeeded: w >> (8 * UInt32($0))) } }
  }
}

/// Just enough of a FlatBuffers reader to find where a well-formed `.tflite` keeps its
/// constant data, so fuzz tests can aim flips at the structure rather than the weights.
public enum TFLiteLayout {
  /// Byte ranges of the `data` vectors of `model.buffers`; empty if the file is not a
  /// well-formed model.
  public static func bufferDataRanges(_ bytes: [UInt8]) -> [Range<Int>] {
    func u32(_ at: Int) -> Int? {
      guard at >= 0, at + 4 <= bytes.count else { return nil }
      return (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
    }
    func u16(_ at: Int) -> Int? {
      guard at >= 0, at + 2 <= bytes.count else { return nil }
      return Int(bytes[at]) | Int(bytes[at + 1]) << 8
    }
    /// Position of the uoffset field `id` of the table at `table`, if present.
    func field(_ table: Int, _ id: Int) -> Int? {
      guard let soffset = u32(table) else { return nil }
      let vtable = table - Int(Int32(truncatingIfNeeded: soffset))
      guard let vtableSize = u16(vtable), 4 + 2 * id + 2 <= vtableSize,
        let offset = u16(vtable + 4 + 2 * id), offset != 0
      else { return nil }
      return table + offset
    }
    func follow(_ at: Int) -> Int? { u32(at).map { at + $0 } }

    guard let root = follow(0), let buffersField = field(root, 4), let vector = follow(buffersField),
      let count = u32(vector)
    else { return [] }
    var ranges: [Range<Int>] = []
    for k in 0..<count {
      guard let buffer = follow(vector + 4 + 4 * k) else { return [] }
      guard let dataField = field(buffer, 0), let data = follow(dataField), let n = u32(data) else {
        continue
      }
      ranges.append((data + 4)..<(data + 4 + n))
    }
    return ranges
  }
}
