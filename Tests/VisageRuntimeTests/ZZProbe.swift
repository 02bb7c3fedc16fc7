import Testing
import VisageRuntime
import VisageTFLite
import VisageTestSupport

@Test func probeBlas() throws {
  for fixture in RuntimeFixtures.cases {
    let model = try fixture.model.load()
    for impl in Implementation.allCases {
      let out = try Interpreter(model: model, implementation: impl).run(fixture.inputs())
      let exp = try fixture.outputs()
      let errs = zip(out, exp).map { maxScaledError($0.values, $1.values) }
      print("PROBE \(fixture) \(impl) \(errs)")
    }
  }
  for bundled in BundledModel.allCases {
    let model = try bundled.load()
    let ref = try Interpreter(model: model, implementation: .reference)
    for seed in UInt64(40)..<UInt64(46) {
      let inputs = try DifferentialTests.inputs(for: ref, seed: seed)
      let e = try ref.run(inputs)
      let b = try Interpreter(model: model, implementation: .blas).run(inputs)
      print("PROBE \(bundled) seed \(seed) blas \(zip(b, e).map { maxScaledError($0.values, $1.values) })")
    }
  }
}
