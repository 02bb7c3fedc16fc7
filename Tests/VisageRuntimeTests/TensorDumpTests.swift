import Testing
import VisageKernels
import VisageRuntime
import VisageTFLite
import VisageTestSupport

/// `TensorDump`, what `visage run --dump-tensors` writes: every tensor in execution order,
/// each file's values checked against LiteRT's fingerprints of the bundled models.
@Suite struct TensorDumpTests {
  /// Every operator output LiteRT fingerprinted is in the dump, in the same order, written
  /// by an operator of the same type, and its `.npy` file (decoded as `visage compare` reads
  /// it) agrees with the fingerprint within the layer fingerprints' bound.
  @Test(arguments: RuntimeFixtures.fingerprintCases, [Implementation.optimized, .reference])
  func dumpMatchesLiteRTFingerprints(_ fixture: RuntimeFixtures.Case, _ implementation: Implementation) throws {
    let dump = try TensorDump(modelBytes: ModelSource.modelBytes(at: fixture.model.reference))
    #expect(dump.stop == nil)
    let interpreter = try Interpreter(model: dump.model, implementation: implementation, preservingAllTensors: true)
    _ = try interpreter.run(fixture.inputs())
    let references = try Fingerprint.load(fixture.layersPath)
    // The fingerprints leave DEQUANTIZE out; the dump lists it like any operator.
    let written = dump.entries.filter { $0.producer != nil && $0.producer?.type != "DEQUANTIZE" }
    #expect(written.map(\.index) == references.map(\.tensor), "\(fixture): operator outputs in another order")
    let byIndex = Dictionary(uniqueKeysWithValues: dump.entries.map { ($0.index, $0) })
    for reference in references {
      let entry = try #require(byIndex[reference.tensor], "\(fixture): tensor \(reference.tensor) not dumped")
      #expect(entry.producer?.type == reference.op, "\(fixture): tensor \(reference.tensor)")
      let bytes = try #require(dump.npy(of: entry, from: interpreter))
      let array = try NPYArray(npy: bytes)
      #expect(array.descr == "<f4" && array.shape == entry.shape && array.shape == reference.shape)
      let ours = Fingerprint(of: array.values.map { Float($0) }, like: reference)
      let differences = ours.differences(from: reference, bound: LayerFingerprintTests.bound)
      guard differences.isEmpty else {
        Issue.record("\(fixture) \(implementation): tensor \(reference.tensor) '\(reference.name)': \(differences)")
        return
      }
    }
  }

  /// Inputs first; each constant before the first operator that reads it; every file name
  /// `NNNN_name.npy`, unique; constants kept in the type the model stores them in.
  @Test func layoutOfTheBlendshapeModel() throws {
    let dump = try TensorDump(modelBytes: ModelSource.modelBytes(at: BundledModel.faceBlendshapes.reference))
    let entries = dump.entries
    #expect(entries.first?.name == "serving_default_input_points:0" && entries.first?.producer == nil)
    #expect(Set(entries.map(\.file)).count == entries.count)
    #expect(Set(entries.map(\.index)).count == entries.count)
    var seen = Set<Int>()
    for entry in entries {
      let prefix =
        String(entry.index).count >= 4
        ? String(entry.index) : String(repeating: "0", count: 4 - String(entry.index).count) + String(entry.index)
      #expect(entry.file.hasPrefix(prefix + "_") && entry.file.hasSuffix(".npy"))
      #expect(!entry.file.contains("/") && !entry.file.contains(":"))
      for input in entry.producer?.inputs ?? [] { #expect(seen.contains(input), "tensor \(input) read before listed") }
      seen.insert(entry.index)
    }
    let dtypes = Set(entries.filter { $0.producer == nil }.map(\.dtype))
    #expect(dtypes.isSuperset(of: ["<f2", "<i4"]), "\(dtypes)")
    #expect(entries.allSatisfy { $0.producer == nil || $0.dtype == "<f4" })
  }

  /// File names follow docs/validation.md's rule, as Tools/litert_dump.py's regular
  /// expression does: every run of other characters one `_`, a kept `_` beside it kept too.
  @Test func fileNamesReplaceRunsOfOtherCharacters() throws {
    let model = TinyModel(
      operatorCodes: [TinyModel.Builtin.relu],
      tensors: [.float([2], "a_/b:0"), .float([2], "über//x__y")], inputs: [0], outputs: [1],
      operators: [.init(opcodeIndex: 0, inputs: [0], outputs: [1])])
    let dump = try TensorDump(modelBytes: model.bytes)
    #expect(dump.entries.map(\.file) == ["0000_a__b_0.npy", "0001__ber_x__y.npy"])
  }

  /// A model with an operator the runtime lacks is read up to it: the stop names it, and
  /// what comes before runs and dumps.
  @Test func partialDumpStopsAtTheUnsupportedOperator() throws {
    let dump = try TensorDump(modelBytes: TinyModel.stopsAtSoftmax.bytes)
    let stop = try #require(dump.stop)
    #expect(stop.index == 1 && stop.type == "SOFTMAX" && stop.reason.contains("SOFTMAX"))
    #expect(dump.entries.map(\.index) == [0, 1, 2])
    #expect(dump.entries.map(\.producer?.type) == [nil, nil, "ADD"])
    let interpreter = try Interpreter(model: dump.model, implementation: .reference, preservingAllTensors: true)
    _ = try interpreter.run([Tensor(shape: Shape([4]), values: [10, 20, 30, 40])])
    let sum = try NPYArray(npy: #require(dump.npy(of: dump.entries[2], from: interpreter)))
    #expect(sum.values == [11, 22, 33, 44])
    // Reading the model whole still fails, as before.
    #expect(throws: TFLiteError.self) { try TFLiteModel(bytes: TinyModel.stopsAtSoftmax.bytes) }
  }

  /// `NPYArray` widens every dtype a dump may hold, sign-extends the narrow integers, and
  /// refuses what it cannot read with the dtype named.
  @Test func npyArrayReadsEveryDumpType() throws {
    func file(_ descr: String, _ shape: [Int], _ data: [UInt8]) throws -> [UInt8] {
      try NPYArray.npy(descr: descr, shape: shape, data: data)
    }
    #expect(
      try NPYArray(npy: file("<f2", [3], [0x00, 0x3C, 0x00, 0xC0, 0x00, 0x7E])).values.enumerated().map {
        $0.offset == 2 ? ($0.element.isNaN ? 1 : 0) : $0.element
      } == [1, -2, 1])
    #expect(try NPYArray(npy: file("<i4", [2], [0xFF, 0xFF, 0xFF, 0xFF, 7, 0, 0, 0])).values == [-1, 7])
    #expect(try NPYArray(npy: file("|i1", [2], [0xFE, 0x05])).values == [-2, 5])
    #expect(try NPYArray(npy: file("|u1", [2], [0xFE, 0x05])).values == [254, 5])
    #expect(try NPYArray(npy: file("|b1", [], [1])).values == [1])
    #expect(try NPYArray(npy: file("<f8", [1], Array(repeating: 0, count: 6) + [0xF0, 0x3F])).values == [1])
    let scalar = try NPYArray(npy: file("<f4", [], [0, 0, 0x80, 0x3F]))
    #expect(scalar.shape == [] && scalar.values == [1])
    // Big-endian data is refused, and so is data longer than its shape, when read and
    // when written.
    let one = try file("<f4", [1], [0, 0, 0x80, 0x3F])
    var bigEndian = one
    let at = try #require(one.indices.dropLast(2).first { one[$0...].starts(with: Array("<f4".utf8)) })
    bigEndian[at] = UInt8(ascii: ">")
    #expect(throws: RuntimeError.self) { try NPYArray(npy: bigEndian) }
    #expect(throws: RuntimeError.self) { try NPYArray(npy: one + [0, 0, 0, 0]) }
    #expect(throws: RuntimeError.self) { try file(">f4", [1], [0x3F, 0x80, 0, 0]) }
    #expect(throws: RuntimeError.self) { try file("<f4", [2], [0, 0, 0x80, 0x3F]) }
  }
}
