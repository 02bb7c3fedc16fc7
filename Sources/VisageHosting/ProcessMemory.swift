import CAllocator
import Foundation

/// How a process that decodes large photos one after another keeps its memory.
public enum ProcessMemory {
  /// Keeps freed large buffers for the next photo instead of handing them back to the system
  /// (glibc's malloc settings; nothing on other C libraries). By default each 12 MP photo's
  /// 36 MB of pixels came in fresh pages that the kernel faulted in and zeroed: in
  /// visage-server about 8,800 page faults and 17 ms of system time per photo, 0.60 of the
  /// command line's photos per second. For programs that decode photos by the batch (the
  /// `visage` command line calls it too); a library does not choose its host's allocator, so
  /// nothing calls it for you. Call it first thing; returns whether the settings were taken.
  @discardableResult
  public static func retainFreedMemory() -> Bool { visage_retain_freed_memory() == 1 }
}

extension ProcessMemory {
  /// This process's resident memory now (Linux's `VmRSS`), or its peak so far (`VmHWM`), in
  /// bytes; nil where `/proc` does not say.
  public static func residentBytes(peak: Bool = false) -> Int? {
    let field = peak ? "VmHWM:" : "VmRSS:"
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
      let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return nil }
    return kilobytes * 1024
  }
}
