import Foundation

/// The environment variables that tune the kernels (`VISAGE_MAX_ISA`, `VISAGE_TILE_ROWS`),
/// checked without stopping the process. The kernels stop it at their first use of a bad value,
/// so that a misspelt setting cannot pass for a measured one; a program calls this first to
/// refuse such a value with a message of its own (the command line: exit status 2).
public enum KernelEnvironment {
  /// One sentence per variable set to a value the kernels would refuse.
  public static func problems(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
    var problems: [String] = []
    if let cap = environment["VISAGE_MAX_ISA"], !cap.isEmpty, InstructionSet.named(cap) == nil {
      let names = InstructionSet.available.map(\.description)
      let allowed = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " or " + names.last!
      problems.append("VISAGE_MAX_ISA is \"\(cap)\"; it must be \(allowed)")
    }
    if let rows = environment["VISAGE_TILE_ROWS"], !rows.isEmpty, TileHeight.named(rows) == nil {
      problems.append("VISAGE_TILE_ROWS is \"\(rows)\"; it must be 8, 6, 4 or 2")
    }
    return problems
  }
}
