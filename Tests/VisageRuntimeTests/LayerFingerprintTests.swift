import Testing
import VisageKernels
import VisageRuntime
import VisageTFLite
import VisageTestSupport

/// Bisection for free: with every tensor preserved, compare each operator's output with
/// LiteRT's fingerprint of it (count, mean, RMS, min, max, samples) in execution order and
/// report the FIRST one that drifts — the layer to look at when a model's outputs disagree.
///
/// The fixtures live in Tests/Fixtures/runtime; see `RuntimeFixtures` for the layout.
@Suite struct LayerFingerprintTests {
  /// The fixtures are committed; missing ones fail here rather than skipping the suite.
  @Test func fixturesArePresent() {
    #expect(RuntimeFixtures.available && !RuntimeFixtures.cases.isEmpty, "Tests/Fixtures/runtime is missing")
  }

  /// Same bound as the outputs, on the scale of each layer's own range, where the kernels
  /// multiply and add as LiteRT's reference kernels do (the baseline level). Where they fuse
  /// each multiply-add (AVX2, AVX-512), rounding differences build up over hundreds of layers:
  /// the face mesh model on random input reaches 1.25e-5 at its layer #215 (a one-value
  /// CONV_2D) while its outputs stay within 4.1e-6, so the bound there is 2e-5.
  static let bound = InstructionSet.active.fusesMultiplyAdd ? 2e-5 : 1e-5

  @Test(arguments: RuntimeFixtures.fingerprintCases, [Implementation.optimized, .reference])
  func firstDivergentLayer(_ fixture: RuntimeFixtures.Case, _ implementation: Implementation) throws {
    let model = try fixture.model.load()
    let interpreter = try Interpreter(model: model, implementation: implementation, preservingAllTensors: true)
    _ = try interpreter.run(fixture.inputs())
    let references = try Fingerprint.load(fixture.layersPath)
    try #require(!references.isEmpty, "\(fixture): no fingerprints in \(fixture.layersPath)")
    var checked = 0
    for (position, reference) in references.enumerated() {
      guard let tensor = interpreter.value(ofTensor: reference.tensor) else {
        let message =
          "\(fixture) \(implementation): fingerprint \(position) (\(reference.op), tensor \(reference.tensor) "
          + "'\(reference.name)') names a tensor our interpreter does not hold"
        Issue.record("\(message)")
        return
      }
      if let shape = reference.shape, shape != tensor.shape.dimensions {
        let message =
          "\(fixture) \(implementation): first divergent layer is #\(position) \(reference.op), tensor "
          + "\(reference.tensor) '\(reference.name)': shape \(tensor.shape) vs LiteRT \(shape)"
        Issue.record("\(message)")
        return
      }
      let ours = Fingerprint(of: tensor.values, like: reference)
      let differences = ours.differences(from: reference, bound: Self.bound)
      if !differences.isEmpty {
        let message =
          "\(fixture) \(implementation): first divergent layer is #\(position) \(reference.op), tensor "
          + "\(reference.tensor) '\(reference.name)' (\(checked) layers before it agree): "
          + differences.prefix(6).joined(separator: "; ")
        Issue.record("\(message)")
        return
      }
      checked += 1
    }
  }
}
