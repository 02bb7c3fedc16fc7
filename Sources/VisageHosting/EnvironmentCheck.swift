import Foundation
import VisageKernels

/// The `VISAGE_*` environment variables a program built on Visage reads, checked at its start
/// so that a bad value is a clear usage error rather than a stop deep inside a kernel.
public enum EnvironmentCheck {
  /// One sentence per variable whose value would be refused: the kernels' (`VISAGE_MAX_ISA`,
  /// `VISAGE_TILE_ROWS`) and `VISAGE_WEIGHTS`, which must be a folder when set.
  public static func problems(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
    var problems = KernelEnvironment.problems(environment)
    if let folder = environment["VISAGE_WEIGHTS"], !folder.isEmpty {
      var isFolder: ObjCBool = false
      if !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) || !isFolder.boolValue {
        problems.append("VISAGE_WEIGHTS is \"\(folder)\", which is not a folder")
      }
    }
    return problems
  }
}
