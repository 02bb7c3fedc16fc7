import CVisageISA
import Foundation
import VisageMicroKernels

#if canImport(VisageMicroKernelsAVX2)
  import VisageMicroKernelsAVX2
#endif
#if canImport(VisageMicroKernelsAVX512)
  import VisageMicroKernelsAVX512
#endif
#if canImport(VisageMicroKernelsFMA)
  import VisageMicroKernelsFMA
#endif

/// An instruction-set level the hot SIMD loops (the VisageMicroKernels module) are
/// compiled at.
///
/// Swift has no per-function target attribute, so on x86-64 Linux the package compiles that
/// module three times from the same sources (the AVX2 and AVX-512 copies' folders are
/// symlinks to it), with `-target-cpu haswell` and `skylake-avx512`; on arm64, twice (the
/// second, `neonFMA`, fuses multiply-adds; NEON is in every AArch64 CPU). Each process runs
/// one level, picked from the CPU's features the first time a kernel is planned. Every
/// copy sums in the same order; the AVX2, AVX-512 and NEON FMA copies fuse each multiply-add
/// (`VISAGE_FMA`, one rounding), the baseline multiplies and adds apart as TFLite's
/// reference kernels do, so the baseline gives their bits and the FMA levels differ by
/// rounding (docs/parity.md). Elsewhere there is one copy, the baseline. What has run on
/// arm64, and how, is in docs/platforms.md.
public enum InstructionSet: Int, Comparable, CaseIterable, Sendable, CustomStringConvertible {
  /// What the target's baseline offers: SSE2 on x86-64, NEON on arm64.
  case baseline
  /// AVX2 with FMA (Haswell and later, Zen and later).
  case avx2
  /// AVX-512 F, CD, BW, DQ and VL (Skylake-SP and later, Zen 4 and later).
  case avx512
  /// NEON with each multiply-add fused (`fmla`): every arm64 CPU's default.
  case neonFMA

  public var description: String {
    switch self {
    case .baseline: "baseline"
    case .avx2: "avx2"
    case .avx512: "avx512"
    case .neonFMA: "neonfma"
    }
  }

  public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

  /// The highest level both this build and this CPU have.
  public static let supported: InstructionSet = {
    #if canImport(VisageMicroKernelsAVX512)
      return InstructionSet(rawValue: Int(visage_isa_level())) ?? .baseline
    #elseif canImport(VisageMicroKernelsFMA) && arch(arm64)
      return .neonFMA
    #else
      return .baseline
    #endif
  }()

  /// The levels of the architecture this was built for, in order: baseline, avx2 and avx512
  /// on x86-64; baseline and neonfma on arm64; the baseline elsewhere.
  public static let available: [InstructionSet] = {
    #if arch(x86_64)
      return [.baseline, .avx2, .avx512]
    #elseif arch(arm64)
      return [.baseline, .neonFMA]
    #else
      return [.baseline]
    #endif
  }()

  /// Whether this level's micro-kernels fuse each multiply-add of a dot product into one
  /// FMA instruction (one rounding): AVX2, AVX-512 and NEON FMA do, the baseline (SSE2, or
  /// NEON on arm64 with `VISAGE_MAX_ISA=baseline`) multiplies and adds as TFLite's reference
  /// kernels do, bit for bit.
  public var fusesMultiplyAdd: Bool { self != .baseline }

  /// Every level this build and this CPU can run, for tests that compare them.
  public static var runnable: [InstructionSet] { available.filter { $0 <= supported } }

  /// The level every kernel planned in this process runs: `supported`, capped by the
  /// environment variable `VISAGE_MAX_ISA` (one of `available`: `baseline`, `avx2` or
  /// `avx512` on x86-64, `baseline` or `neonfma` on arm64) when it is set.
  /// The cap is for tests, which run the parity suites at each level, and for anyone who
  /// needs the narrower kernels. Read once; an unknown value stops the process, so that a
  /// misspelt cap cannot pass for a tested level.
  public static let active: InstructionSet = {
    guard let cap = ProcessInfo.processInfo.environment["VISAGE_MAX_ISA"], !cap.isEmpty else { return supported }
    guard let level = named(cap) else { fatalError(KernelEnvironment.problems()[0]) }
    return min(level, supported)
  }()

  /// The level a `VISAGE_MAX_ISA` value names, if this architecture has it.
  static func named(_ text: String) -> InstructionSet? { available.first { $0.description == text } }
}

/// One instruction set's micro-kernels: entry points of one copy of VisageMicroKernels,
/// picked when a kernel is planned and kept with it, so a run costs one indirect call.
struct MicroKernels: Sendable {
  typealias PackedGEMM = @Sendable (VisagePackedWeights, VisageGEMMOperands) -> Void

  typealias LeftPackedGEMM =
    @Sendable (
      VisageLeftPackedWeights, Int, UnsafePointer<Float>, Int, UnsafeMutablePointer<Float>, Int, UnsafePointer<Float>?,
      Range<Int>
    ) -> Void

  typealias Depthwise3x3Row =
    @Sendable (
      VisageDepthwise3x3, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafeMutablePointer<Float>
    ) -> Void

  typealias FixedPointWarp = @Sendable (VisageFixedPointWarp, UnsafeMutablePointer<Float>) -> Void

  let packedGEMM: PackedGEMM
  let leftPackedGEMM: LeftPackedGEMM
  let depthwise3x3Row: Depthwise3x3Row
  let fixedPointWarp: FixedPointWarp
  let maxPool2x2Row:
    @Sendable (
      UnsafePointer<Float>, Int, Int, UnsafeMutablePointer<Float>, Int, Int, Float, Float
    ) -> Void

  /// The active instruction set's, for kernels that have no plan object to keep them in.
  static let active = of(.active)

  static func of(_ instructionSet: InstructionSet) -> MicroKernels {
    switch instructionSet {
    #if canImport(VisageMicroKernelsAVX512)
      case .avx512: avx512
      case .avx2: avx2
    #endif
    #if canImport(VisageMicroKernelsFMA)
      case .neonFMA: neonFMA
    #endif
    default: baseline
    }
  }

  private static let baseline = MicroKernels(
    packedGEMM: VisageMicroKernels.packedGEMM, leftPackedGEMM: VisageMicroKernels.leftPackedGEMM,
    depthwise3x3Row: VisageMicroKernels.depthwise3x3Row, fixedPointWarp: VisageMicroKernels.fixedPointWarp,
    maxPool2x2Row: VisageMicroKernels.maxPool2x2Row)
  #if canImport(VisageMicroKernelsAVX2)
    private static let avx2 = MicroKernels(
      packedGEMM: VisageMicroKernelsAVX2.packedGEMM, leftPackedGEMM: VisageMicroKernelsAVX2.leftPackedGEMM,
      depthwise3x3Row: VisageMicroKernelsAVX2.depthwise3x3Row, fixedPointWarp: VisageMicroKernelsAVX2.fixedPointWarp,
      maxPool2x2Row: VisageMicroKernelsAVX2.maxPool2x2Row)
  #endif
  #if canImport(VisageMicroKernelsAVX512)
    private static let avx512 = MicroKernels(
      packedGEMM: VisageMicroKernelsAVX512.packedGEMM, leftPackedGEMM: VisageMicroKernelsAVX512.leftPackedGEMM,
      depthwise3x3Row: VisageMicroKernelsAVX512.depthwise3x3Row,
      fixedPointWarp: VisageMicroKernelsAVX512.fixedPointWarp,
      maxPool2x2Row: VisageMicroKernelsAVX512.maxPool2x2Row)
  #endif
  #if canImport(VisageMicroKernelsFMA)
    private static let neonFMA = MicroKernels(
      packedGEMM: VisageMicroKernelsFMA.packedGEMM, leftPackedGEMM: VisageMicroKernelsFMA.leftPackedGEMM,
      depthwise3x3Row: VisageMicroKernelsFMA.depthwise3x3Row, fixedPointWarp: VisageMicroKernelsFMA.fixedPointWarp,
      maxPool2x2Row: VisageMicroKernelsFMA.maxPool2x2Row)
  #endif
}
