import Testing
import VisageKernels
import VisageRuntime
import VisageTFLite
import VisageTestSupport

typealias Spec = TinyModel.TensorSpec
typealias OpSpec = TinyModel.OperatorSpec
typealias Builtin = TinyModel.Builtin

/// Small models written by `TinyModel`: what loads and runs, and what each kind of damage
/// turns into. Every failure must be a `TFLiteError` that says where the problem is.
// The limit turns a hang into a failure. It is generous because the clock runs while a test
// waits for a thread: in the parallel run, heavy suites held both cores past a 1-minute limit.
@Suite(.timeLimit(.minutes(minutesAllowed(10)))) struct LoaderTests {
  // MARK: Models that work

  @Test(arguments: Implementation.allCases)
  func addWithFusedReluRuns(_ implementation: Implementation) throws {
    // y = relu(x + c), c broadcast along the rows; fused activation 1 is RELU.
    let tiny = TinyModel.add(shape: [2, 3], constantShape: [3], constant: [1, -2, 0.5], fusedActivation: 1)
    let model = try TFLiteModel(bytes: tiny.bytes)
    #expect(model.inputNames == ["x"])
    #expect(model.outputNames == ["y"])
    #expect(model.operatorCounts == ["ADD": 1])
    #expect(model.modelDescription == "Visage test model")
    #expect(model.weightBytes == 12)
    let interpreter = try Interpreter(model: model, implementation: implementation)
    #expect(interpreter.inputShapes == [[2, 3]])
    let x = try Tensor(shape: [2, 3], values: [0, 1, 2, -3, 4, -0.25])
    let y = try interpreter.run([x])
    let expected = try Tensor(shape: [2, 3], values: [1, 0, 2.5, 0, 2, 0.25])
    #expect(y == [expected])
  }

  @Test(arguments: Implementation.allCases)
  func reluRuns(_ implementation: Implementation) throws {
    let model = try TFLiteModel(bytes: TinyModel.unary(Builtin.relu, shape: [1, 3, 3]).bytes)
    let interpreter = try Interpreter(model: model, implementation: implementation)
    let values: [Float] = [-4, -3, -2, -1, 0, 1, 2, 3, 4]
    let y = try interpreter.run([try Tensor(shape: [1, 3, 3], values: values)])
    #expect(y.first?.values == values.map { max(0, $0) })
  }

  /// CONV_2D with options read from the file: SAME padding, stride 1, an all-ones 3×3
  /// filter and bias 0.5 sum each neighbourhood (the kernel golden, through the loader).
  @Test(arguments: Implementation.allCases)
  func convolutionOptionsAreDecoded(_ implementation: Implementation) throws {
    let tiny = TinyModel(
      operatorCodes: [Builtin.conv2D],
      tensors: [
        .float([1, 3, 3, 1], "x"), .float([1, 3, 3, 1], "w", values: Array(repeating: 1, count: 9)),
        .float([1], "b", values: [0.5]), .float([1, 3, 3, 1], "y"),
      ],
      inputs: [0], outputs: [3],
      operators: [
        OpSpec(
          opcodeIndex: 0, inputs: [0, 1, 2], outputs: [3], optionsType: TinyModel.OptionsType.conv2D,
          options: [0: .int8(0), 1: .int32(1), 2: .int32(1), 3: .int8(0)])
      ])
    let interpreter = try Interpreter(model: try TFLiteModel(bytes: tiny.bytes), implementation: implementation)
    let y = try interpreter.run([try Tensor(shape: [1, 3, 3, 1], values: [1, 2, 3, 4, 5, 6, 7, 8, 9])])
    #expect(y.first?.values == [12.5, 21.5, 16.5, 27.5, 45.5, 33.5, 24.5, 39.5, 28.5])
  }

  /// A FLOAT16 constant through DEQUANTIZE is folded into a float constant at load.
  @Test func dequantizedHalfConstantIsFolded() throws {
    let tiny = TinyModel(
      operatorCodes: [Builtin.dequantize, Builtin.add],
      tensors: [
        .float([3], "x"), .float16([3], "h", bits: [0x3C00, 0xC000, 0x3555]), .float([3], "c"),
        .float([3], "y"),
      ],
      inputs: [0], outputs: [3],
      operators: [
        OpSpec(opcodeIndex: 0, inputs: [1], outputs: [2]),
        OpSpec(opcodeIndex: 1, inputs: [0, 2], outputs: [3]),
      ])
    let model = try TFLiteModel(bytes: tiny.bytes)
    #expect(model.operatorCounts == ["DEQUANTIZE": 1, "ADD": 1])
    #expect(model.graph.nodes.count == 1)
    let y = try Interpreter(model: model).run([try Tensor(shape: [3], values: [0, 0, 0])])
    #expect(y.first?.values == [1, -2, Half.float(fromBits: 0x3555)])
  }

  /// A model with no operators: its output is its input.
  @Test func identityModelRuns() throws {
    let tiny = TinyModel(operatorCodes: [], tensors: [.float([4], "x")], inputs: [0], outputs: [0], operators: [])
    let y = try Interpreter(model: try TFLiteModel(bytes: tiny.bytes)).run([
      try Tensor(shape: [4], values: [1, 2, 3, 4])
    ])
    #expect(y.first?.values == [1, 2, 3, 4])
  }

  // MARK: Damaged structure

  @Test func tensorIndexOutOfRangeNamesTheOperatorInput() throws {
    var tiny = TinyModel.add(shape: [2], constantShape: [2], constant: [1, 2])
    tiny.operators[0].inputs = [0, 7]
    let error = try expectLoadError(tiny.bytes)
    guard case .malformed(let path, let reason) = error else { return expectCase("malformed", error) }
    #expect(path.hasSuffix("subgraphs[0].operators[0].inputs[1]"), "\(path)")
    #expect(reason.contains("7"), "\(reason)")
    #expect(error.description.contains("subgraphs[0].operators[0].inputs[1]"))
  }

  @Test func negativeOutputIndexIsMalformed() throws {
    var tiny = TinyModel.unary(Builtin.relu, shape: [2])
    tiny.operators[0].outputs = [-1]
    let error = try expectLoadError(tiny.bytes)
    guard case .malformed(let path, _) = error else { return expectCase("malformed", error) }
    #expect(path.hasSuffix("subgraphs[0].operators[0].outputs[0]"), "\(path)")
  }

  @Test func graphInputIndexOutOfRangeIsMalformed() throws {
    var tiny = TinyModel.unary(Builtin.relu, shape: [2])
    tiny.inputs = [5]
    let error = try expectLoadError(tiny.bytes)
    guard case .malformed(let path, _) = error else { return expectCase("malformed", error) }
    #expect(path.hasSuffix("subgraphs[0].inputs[0]"), "\(path)")
  }

  /// Op 0 reads op 1's output and op 1 reads op 0's: an error, not a hang.
  @Test func cycleIsAnErrorNotAHang() throws {
    let tiny = TinyModel(
      operatorCodes: [Builtin.relu],
      tensors: [.float([2], "x"), .float([2], "a"), .float([2], "b")],
      inputs: [0], outputs: [2],
      operators: [
        OpSpec(opcodeIndex: 0, inputs: [2], outputs: [1]),
        OpSpec(opcodeIndex: 0, inputs: [1], outputs: [2]),
      ])
    let model = try TFLiteModel(bytes: tiny.bytes)
    let error = try expectGraphError(model)
    #expect(error.description.contains("operators[0].inputs[0]"), "\(error)")
    #expect(error.description.contains("cycle"), "\(error)")
  }

  @Test func operatorWritingItsOwnInputIsAnError() throws {
    var tiny = TinyModel.unary(Builtin.relu, shape: [2])
    tiny.operators[0].outputs = [0]
    _ = try expectGraphError(try TFLiteModel(bytes: tiny.bytes))
  }

  @Test(arguments: [[Int32]([1, 0, 3]), [0], [2, -1], [-3]])
  func zeroOrNegativeDimensionsAreAClearError(_ shape: [Int32]) throws {
    let model = try TFLiteModel(bytes: TinyModel.unary(Builtin.relu, shape: shape).bytes)
    let error = try expectGraphError(model)
    #expect(error.description.contains("positive"), "\(error)")
  }

  /// 3·2⁶⁰ values: refused from the declared shape, before anything is allocated (this
  /// test would exhaust memory, or take minutes, otherwise).
  @Test(arguments: [[Int32]([1, 1 << 30, 1 << 30, 3]), [1 << 27], [Int32.max, Int32.max, Int32.max]])
  func hugeDimensionsAreAClearError(_ shape: [Int32]) throws {
    let model = try TFLiteModel(bytes: TinyModel.unary(Builtin.relu, shape: shape).bytes)
    let error = try expectGraphError(model)
    #expect(error.description.contains("at most"), "\(error)")
  }

  /// Five tensors of 2²⁶ floats each fit the per-tensor limit but not the arena limit
  /// when every tensor keeps its own memory.
  @Test func arenaLimitIsCheckedBeforeAllocating() throws {
    let n: Int32 = 1 << 26
    let tiny = TinyModel(
      operatorCodes: [Builtin.relu],
      tensors: (0..<5).map { .float([n], "t\($0)") },
      inputs: [0], outputs: [4],
      operators: (0..<4).map { OpSpec(opcodeIndex: 0, inputs: [Int32($0)], outputs: [Int32($0 + 1)]) })
    let model = try TFLiteModel(bytes: tiny.bytes)
    let error = try requireThrows(TFLiteError.self) {
      try Interpreter(model: model, implementation: .reference, preservingAllTensors: true)
    }
    #expect(error.description.contains("activations need"), "\(error)")
  }

  @Test(arguments: [
    (TinyModel.Builtin.softmax, "SOFTMAX"), (TinyModel.Builtin.batchMatmul, "BATCH_MATMUL"), (300, "BUILTIN_300"),
  ])
  func unsupportedOperatorIsNamed(_ code: Int32, _ name: String) throws {
    let error = try expectLoadError(TinyModel.unary(code, shape: [1, 4]).bytes)
    guard case .unsupportedOperator(let reported, let location) = error else {
      return expectCase("unsupportedOperator", error)
    }
    #expect(reported == name)
    #expect(location.hasSuffix("subgraphs[0].operators[0]"), "\(location)")
    #expect(error.description.contains(name))
  }

  @Test func opcodeIndexOutOfRangeIsMalformed() throws {
    var tiny = TinyModel.unary(Builtin.relu, shape: [2])
    tiny.operators[0].opcodeIndex = 3
    let error = try expectLoadError(tiny.bytes)
    guard case .malformed(let path, _) = error else { return expectCase("malformed", error) }
    #expect(path.hasSuffix("subgraphs[0].operators[0].opcode_index"), "\(path)")
  }

  @Test func unsupportedFusedActivationIsNamed() throws {
    let tiny = TinyModel.add(shape: [2], constantShape: [2], constant: [1, 2], fusedActivation: 4)
    let error = try expectLoadError(tiny.bytes)
    guard case .unsupported(let path, let reason) = error else { return expectCase("unsupported", error) }
    #expect(path.hasSuffix("fused_activation_function"), "\(path)")
    #expect(reason.contains("TANH"), "\(reason)")
  }

  @Test func twoOutputsAreUnsupported() throws {
    var tiny = TinyModel.unary(Builtin.relu, shape: [2])
    tiny.tensors.append(.float([2], "z"))
    tiny.operators[0].outputs = [1, 2]
    let error = try expectLoadError(tiny.bytes)
    guard case .unsupported = error else { return expectCase("unsupported", error) }
  }

  @Test func integerActivationIsUnsupported() throws {
    var tiny = TinyModel.unary(Builtin.relu, shape: [2])
    tiny.tensors[1].type = TinyModel.TensorType.int32
    let error = try expectLoadError(tiny.bytes)
    guard case .unsupported(let path, let reason) = error else { return expectCase("unsupported", error) }
    #expect(path.hasSuffix("operators[0].outputs[0]"), "\(path)")
    #expect(reason.contains("INT32"), "\(reason)")
  }

  @Test func unknownTensorTypeIsUnsupported() throws {
    var tiny = TinyModel.unary(Builtin.relu, shape: [2])
    tiny.tensors[0].type = 99
    let error = try expectLoadError(tiny.bytes)
    guard case .unsupported(let path, _) = error else { return expectCase("unsupported", error) }
    #expect(path.hasSuffix("tensors[0].type"), "\(path)")
  }

  @Test func constantDataOfTheWrongSizeIsMalformed() throws {
    var tiny = TinyModel.add(shape: [3], constantShape: [3], constant: [1, 2, 3])
    tiny.tensors[1].data = Array(tiny.tensors[1].data!.prefix(8))
    let error = try expectLoadError(tiny.bytes)
    guard case .malformed(let path, _) = error else { return expectCase("malformed", error) }
    #expect(path.hasSuffix("tensors[1].buffer"), "\(path)")
  }

  @Test func bufferIndexOutOfRangeIsMalformed() throws {
    var tiny = TinyModel.add(shape: [3], constantShape: [3], constant: [1, 2, 3])
    tiny.tensors[1].bufferOverride = 40
    let error = try expectLoadError(tiny.bytes)
    guard case .malformed(let path, _) = error else { return expectCase("malformed", error) }
    #expect(path.hasSuffix("tensors[1].buffer"), "\(path)")
  }

  @Test func wrongVersionIsUnsupported() throws {
    var tiny = TinyModel.unary(Builtin.relu, shape: [2])
    tiny.version = 2
    let error = try expectLoadError(tiny.bytes)
    guard case .unsupported(let path, let reason) = error else { return expectCase("unsupported", error) }
    #expect(path == "model.version")
    #expect(reason.contains("2"), "\(reason)")
  }

  @Test func missingIdentifierAndShortFilesAreMalformed() throws {
    var bytes = TinyModel.unary(Builtin.relu, shape: [2]).bytes
    bytes[4] = UInt8(ascii: "X")
    for sample in [bytes, [], [0, 0, 0, 0, 0x54, 0x46, 0x4C]] {
      let error = try expectLoadError(sample)
      guard case .malformed(let path, _) = error else { return expectCase("malformed", error) }
      #expect(path == "file")
    }
  }

  @Test func rootOffsetOutsideTheFileIsMalformed() throws {
    var bytes = TinyModel.unary(Builtin.relu, shape: [2]).bytes
    bytes[0] = 0xF0
    bytes[1] = 0xFF
    bytes[2] = 0xFF
    bytes[3] = 0x7F
    let error = try expectLoadError(bytes)
    guard case .malformed = error else { return expectCase("malformed", error) }
  }

  @Test func modelWithoutSubgraphsIsMalformed() throws {
    var root = TinyModel.unary(Builtin.relu, shape: [2]).root
    root[2] = .tables([])
    let error = try expectLoadError(TinyModel.serialize(root))
    guard case .malformed(let path, _) = error else { return expectCase("malformed", error) }
    #expect(path == "model.subgraphs")
  }

  // MARK: Vector lengths beyond the file

  /// Damage one vector of the model's table tree so its length word claims `count`.
  static func claiming(_ count: UInt32, at site: String) -> [UInt8] {
    let tiny = TinyModel.add(shape: [2], constantShape: [2], constant: [1, 2])
    var root = tiny.root
    guard case .tables(var subgraphs) = root[2]!, case .tables(var tensors) = subgraphs[0][0]!,
      case .tables(var operators) = subgraphs[0][3]!, case .tables(var buffers) = root[4]!
    else { preconditionFailure("TinyModel's layout changed") }
    func lie(_ value: FlatValue?) -> FlatValue { .claimingCount(count, value!) }
    switch site {
    case "operator_codes": root[1] = lie(root[1])
    case "subgraphs": root[2] = lie(root[2])
    case "buffers": root[4] = lie(root[4])
    case "description": root[3] = lie(root[3])
    case "tensors": subgraphs[0][0] = lie(subgraphs[0][0])
    case "inputs": subgraphs[0][1] = lie(subgraphs[0][1])
    case "operators": subgraphs[0][3] = lie(subgraphs[0][3])
    case "shape": tensors[0][0] = lie(tensors[0][0])
    case "name": tensors[1][3] = lie(tensors[1][3])
    case "operator inputs": operators[0][1] = lie(operators[0][1])
    case "buffer data": buffers[1][0] = lie(buffers[1][0])
    default: preconditionFailure(site)
    }
    if site != "tensors" { subgraphs[0][0] = .tables(tensors) }
    if site != "operators" { subgraphs[0][3] = .tables(operators) }
    if site != "subgraphs" { root[2] = .tables(subgraphs) }
    if site != "buffers" { root[4] = .tables(buffers) }
    return TinyModel.serialize(root)
  }

  static let vectorSites = [
    "operator_codes", "subgraphs", "buffers", "description", "tensors", "inputs", "operators", "shape", "name",
    "operator inputs", "buffer data",
  ]

  @Test(arguments: vectorSites, [UInt32(1 << 20), 0x3FFF_FFFF, UInt32.max])
  func vectorLengthBeyondTheFileIsMalformed(_ site: String, _ count: UInt32) throws {
    let error = try expectLoadError(Self.claiming(count, at: site), label: site)
    guard case .malformed(_, let reason) = error else { return expectCase("malformed", error) }
    #expect(reason.contains("outside") || reason.contains("impossibly"), "\(site): \(reason)")
  }

  /// The builder's output, read back by the tests' own minimal reader: the constant's
  /// bytes are where the buffers table says.
  @Test func builderPlacesConstantDataWhereTheBuffersSay() throws {
    let bytes = TinyModel.add(shape: [3], constantShape: [3], constant: [1, -2, 0.5]).bytes
    #expect(Array(bytes[4..<8]) == Array("TFL3".utf8))
    let ranges = TFLiteLayout.bufferDataRanges(bytes)
    #expect(ranges.count == 1)
    let data = try #require(ranges.first.map { Array(bytes[$0]) })
    let floats = stride(from: 0, to: data.count, by: 4).map { i in
      Float(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(data[i + $1]) << (8 * UInt32($1)) })
    }
    #expect(floats == [1, -2, 0.5])
  }

  /// Sanity check of the damage helper: with honest counts the same model loads.
  @Test func undamagedVectorsLoad() throws {
    let model = try TFLiteModel(bytes: TinyModel.add(shape: [2], constantShape: [2], constant: [1, 2]).bytes)
    #expect(model.graph.nodes.count == 1)
  }

  // MARK: Option combinations TFLite rejects

  /// TFLite's RESIZE_BILINEAR Prepare refuses align_corners together with
  /// half_pixel_centers; so must we (with both, the source row for 4 → 2 rows would be
  /// (1 + 0.5) · 3 − 0.5 = 4, past the input).
  @Test func resizeWithAlignCornersAndHalfPixelCentersIsRefused() throws {
    var tiny = TinyModel(
      operatorCodes: [Builtin.resizeBilinear],
      tensors: [.float([1, 4, 4, 1], "x"), .int32([2], "size", values: [2, 2]), .float([1, 2, 2, 1], "y")],
      inputs: [0], outputs: [2],
      operators: [
        OpSpec(
          opcodeIndex: 0, inputs: [0, 1], outputs: [2], optionsType: TinyModel.OptionsType.resizeBilinear,
          options: [2: .bool(true), 3: .bool(true)])
      ])
    let error = try expectGraphError(try TFLiteModel(bytes: tiny.bytes))
    #expect(error.description.contains("align_corners"), "\(error)")
    #expect(error.description.contains("operators[0]"), "\(error)")
    // Either flag alone is fine.
    for (align, half) in [(true, false), (false, true)] {
      tiny.operators[0].options = [2: .bool(align), 3: .bool(half)]
      let interpreter = try Interpreter(model: try TFLiteModel(bytes: tiny.bytes))
      #expect(try interpreter.run([Tensor(zeros: [1, 4, 4, 1])])[0].values == [0, 0, 0, 0])
    }
  }
}

// MARK: Helpers

/// Expects the loader to throw for `bytes` and returns the error, checking it explains itself.
func expectLoadError(
  _ bytes: [UInt8], label: String = "", sourceLocation: SourceLocation = #_sourceLocation
) throws -> TFLiteError {
  let error = try requireThrows(TFLiteError.self, "\(label)", sourceLocation: sourceLocation) {
    _ = try TFLiteModel(bytes: bytes)
  }
  #expect(!error.description.isEmpty, sourceLocation: sourceLocation)
  return error
}

/// Expects a model that loads to be refused as a graph by the interpreter (both
/// implementations) and returns the optimized one's error.
func expectGraphError(
  _ model: TFLiteModel, sourceLocation: SourceLocation = #_sourceLocation
) throws -> TFLiteError {
  var last: TFLiteError?
  for implementation in Implementation.allCases {
    let error = try requireThrows(TFLiteError.self, "\(implementation)", sourceLocation: sourceLocation) {
      _ = try Interpreter(model: model, implementation: implementation)
    }
    guard case .invalidGraph = error else {
      Issue.record("expected .invalidGraph, got \(error)", sourceLocation: sourceLocation)
      return error
    }
    last = error
  }
  return last!
}

/// Records that `error` is not the expected case.
func expectCase(_ expected: String, _ error: TFLiteError, sourceLocation: SourceLocation = #_sourceLocation) {
  Issue.record("expected .\(expected), got \(error)", sourceLocation: sourceLocation)
}
