import Foundation
import Testing
import VisageKernels
import VisageRuntime
import VisageTFLite
import VisageTestSupport

/// Our outputs against LiteRT's on the stored inputs (Tests/Fixtures/runtime): every
/// output within 1e-5 of the reference's scale, for both implementations.
///
/// The fixtures are committed (see `RuntimeFixtures` for the layout); `fixturesCoverEveryModel`
/// fails if they are missing.
@Suite struct ParityTests {
  /// Every bundled model has a `face` and a `random` input stored.
  @Test func fixturesCoverEveryModel() {
    for model in BundledModel.allCases {
      let inputs = RuntimeFixtures.cases.filter { $0.model == model }.map(\.input)
      #expect(inputs.contains("face") && inputs.contains("random"), "\(model): inputs \(inputs)")
    }
  }

  /// The manifest's output names and shapes are ours, in our order: outK.npy is output K.
  @Test(arguments: BundledModel.allCases)
  func manifestOutputsAreOurs(_ bundled: BundledModel) throws {
    let json = try JSONSerialization.jsonObject(
      with: Data(Fixtures.bytes(atPath: RuntimeFixtures.directory + "/manifest.json")))
    let models = try #require((json as? [String: Any])?["models"] as? [String: Any])
    let entry = try #require(models[bundled.name] as? [String: Any], "\(bundled) missing from the manifest")
    let outputs = try #require(entry["outputs"] as? [[String: Any]])
    let model = try bundled.load()
    let interpreter = try Interpreter(model: model)
    #expect(outputs.compactMap { $0["name"] as? String } == model.outputNames)
    #expect(
      outputs.compactMap { ($0["shape"] as? [NSNumber])?.map(\.intValue) } == interpreter.outputShapes.map(\.dimensions)
    )
  }

  @Test(arguments: RuntimeFixtures.cases, [Implementation.optimized, .reference])
  func outputsMatchLiteRT(_ fixture: RuntimeFixtures.Case, _ implementation: Implementation) throws {
    let model = try fixture.model.load()
    let interpreter = try Interpreter(model: model, implementation: implementation)
    let inputs = try fixture.inputs()
    let expected = try fixture.outputs()
    let outputs = try interpreter.run(inputs)
    try #require(
      expected.count == outputs.count,
      "\(fixture): \(expected.count) stored outputs, the model has \(outputs.count)")
    for (k, (ours, reference)) in zip(outputs, expected).enumerated() {
      #expect(
        ours.shape.count == reference.shape.count,
        "\(fixture) output \(k): shape \(ours.shape) vs \(reference.shape)")
      expectClose(
        ours.values, reference.values, .model,
        "\(fixture) \(implementation) output \(k) '\(model.outputNames[k])'", shape: ours.shape.dimensions)
    }
  }

  /// The largest scaled difference the optimized kernels reach against LiteRT's reference
  /// kernels over all fixture cases and outputs, per model, printed for docs/parity.md and held
  /// to what the kernels achieve, far inside the 1e-5 every model is held to above.
  ///
  /// Measured on x86-64 Linux (`swift test -c release --filter ParityTests/worstCaseDifferences`,
  /// with `VISAGE_MAX_ISA=baseline` for the baseline): at the baseline level, 0
  /// (bit-identical) on the detector, face mesh and full-range models and 2.24e-6 on
  /// blendshapes (its reductions sum in another order); at AVX2, whose micro-kernels fuse
  /// each multiply-add, 1.05e-6, 4.10e-6, 1.24e-6 and 8.9e-7. The bounds: 0 for the three at
  /// the baseline, since any difference there means a kernel changed its summation order;
  /// elsewhere each figure plus about 20%.
  @Test func worstCaseDifferences() throws {
    var worst: [String: Float] = [:]
    for fixture in RuntimeFixtures.cases {
      let outputs = try Interpreter(model: try fixture.model.load()).run(try fixture.inputs())
      for (ours, reference) in zip(outputs, try fixture.outputs()) {
        worst[fixture.model.name] = max(worst[fixture.model.name] ?? 0, maxScaledError(ours.values, reference.values))
      }
    }
    for (name, error) in worst.sorted(by: { $0.key < $1.key }) {
      print("optimized vs LiteRT reference, \(name): \(error)")
    }
    let bounds: [String: Float] =
      InstructionSet.active.fusesMultiplyAdd
      ? [
        "face_detector": 1.3e-6, "face_landmarks_detector": 5e-6, "face_detection_full_range": 1.5e-6,
        "face_blendshapes": 2.5e-6,
      ]
      : ["face_detector": 0, "face_landmarks_detector": 0, "face_detection_full_range": 0, "face_blendshapes": 2.5e-6]
    #expect(Set(worst.keys) == Set(BundledModel.allCases.map(\.name)), "models measured: \(worst.keys.sorted())")
    for (name, error) in worst {
      let bound = try #require(bounds[name], "no bound for \(name)")
      #expect(error <= bound, "\(name): optimized vs LiteRT reference \(error), bound \(bound)")
    }
  }
}
