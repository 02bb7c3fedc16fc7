import Testing

@testable import VisageKernels

/// The levels a build offers are its architecture's, and `VISAGE_MAX_ISA` may name only those.
@Suite struct InstructionSetTests {
  @Test func levelsAreTheArchitecturesOwn() {
    #if arch(x86_64)
      #expect(InstructionSet.available == [.baseline, .avx2, .avx512])
      #expect(InstructionSet.named("neonfma") == nil)
      #expect(
        KernelEnvironment.problems(["VISAGE_MAX_ISA": "neonfma"]) == [
          "VISAGE_MAX_ISA is \"neonfma\"; it must be baseline, avx2 or avx512"
        ])
    #elseif arch(arm64)
      #expect(InstructionSet.available == [.baseline, .neonFMA])
      #expect(InstructionSet.named("avx2") == nil)
      #expect(InstructionSet.supported == .neonFMA)
    #endif
    #expect(InstructionSet.runnable.allSatisfy(InstructionSet.available.contains))
    #expect(InstructionSet.runnable.first == .baseline)
    #expect(!InstructionSet.baseline.fusesMultiplyAdd && InstructionSet.neonFMA.fusesMultiplyAdd)
  }

  /// arm64 takes four rows at both levels (docs/speed.md, "arm64"); x86-64 keeps its table.
  @Test func arm64TilesAreFourRows() {
    #if arch(arm64)
      #expect(TileHeight.rows(at: .baseline) == 4 && TileHeight.rows(at: .neonFMA) == 4)
    #else
      #expect(TileHeight.rows(at: .baseline) == 2 && TileHeight.rows(at: .avx512) == 6)
    #endif
    #expect(TileHeight.rows(at: .neonFMA) == 4 && TileHeight.leftPackedRows(at: .neonFMA) == 4)
  }
}
