import Testing
import VisageRuntime
import VisageTFLite
import VisageTestSupport

/// Our outputs against LiteRT's on the stored inputs (Tests/Fixtures/runtime): every
/// output within 1e-5 of the reference's scale, for both implementations.
///
/// Skipped until the fixtures exist; see `RuntimeFixtures` for the layout.
@Suite(.enabled(if: RuntimeFixtures.available, "Tests/Fixtures/runtime has not been generated"))
struct ParityTests {
  /// Every bundled model has a `face` and a `random` input stored.
  @Test func fixturesCoverEveryModel() {
    for model in BundledModel.allCases {
      let inputs = RuntimeFixtures.cases.filter { $0.model == model }.map(\.input)
      #expect(inputs.contains("face") && inputs.contains("random"), "\(model): inputs \(inputs)")
    }
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
}
