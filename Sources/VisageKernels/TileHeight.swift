import Foundation

/// How many rows of C the GEMM micro-kernels (`PackedGEMM`, `LeftPackedGEMM`) compute per
/// call at each instruction set: as many as their accumulators leave room for in the vector
/// registers.
///
/// A tile of eight rows by 32 columns is sixteen 16-lane accumulators: AVX-512's 32
/// registers hold them, AVX2's 16 eight-lane registers (and SSE's 16 four-lane ones) do not,
/// and the spills cost more than the shorter tile's extra passes over the weights. Six rows
/// of one 16-column panel are AVX2's best fit: twelve eight-lane accumulators, two registers
/// of weights and one broadcast, fifteen of its sixteen. AVX-512 takes six rows too: on the
/// one AVX-512 CPU measured with six-row kernels (a Zen 4), six beat eight by 2-6% on the
/// three convolution models and tied on face_blendshapes (an earlier Intel AVX-512 machine,
/// before the six-row kernels existed, had eight beat four and two).
/// The table was measured on the bundled models, forcing each height with
/// `VISAGE_TILE_ROWS` (`Benchmarks/tile_heights.py`; docs/speed.md, "Tile heights"). It
/// replaced a per-process timing of the heights on a small problem, which on AVX2 kept eight
/// rows in some processes and not others: the same binary ran face_detector 20% slower
/// depending on its environment. Every height sums in the same order, so the height changes
/// speed, never results.
public enum TileHeight {
  /// The rows per micro-kernel call at `instructionSet`, unless `VISAGE_TILE_ROWS` names
  /// another.
  public static func rows(at instructionSet: InstructionSet) -> Int {
    if let forced { return forced }
    switch instructionSet {
    case .avx512, .avx2: return 6
    // On arm64 (both levels), four: NEON's 32 four-lane registers hold four rows of a
    // 16-column panel with room to spare, eight rows spill, and in llvm-mca's estimates four
    // beat six and two (docs/speed.md, "arm64": estimates, not measurements).
    case .neonFMA: return 4
    case .baseline:
      #if arch(arm64)
        return 4
      #else
        return 2  // SSE2's sixteen four-lane registers on x86-64.
      #endif
    }
  }

  /// The left-packed GEMM's rows per call at `instructionSet`: the packed GEMM's, except
  /// that six becomes four, since its panels are eight rows tall (a six-row tile would leave
  /// a two-row tail in every panel) and it has no six-row micro-kernel.
  public static func leftPackedRows(at instructionSet: InstructionSet) -> Int {
    let rows = rows(at: instructionSet)
    return rows == 6 ? 4 : rows
  }

  /// The heights the packed GEMM's micro-kernels have (the left-packed GEMM's: all but 6).
  public static let candidates = [8, 6, 4, 2]

  /// `VISAGE_TILE_ROWS` (8, 6, 4 or 2), for measuring the heights against each other; read
  /// once. Any other value stops the process, as a misspelt `VISAGE_MAX_ISA` does.
  static let forced: Int? = {
    guard let text = ProcessInfo.processInfo.environment["VISAGE_TILE_ROWS"], !text.isEmpty else { return nil }
    guard let rows = named(text) else { fatalError(KernelEnvironment.problems().last!) }
    return rows
  }()

  /// The height a `VISAGE_TILE_ROWS` value names, if any.
  static func named(_ text: String) -> Int? { Int(text).flatMap { candidates.contains($0) ? $0 : nil } }
}
