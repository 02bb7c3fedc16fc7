import Foundation

/// Minutes for a suite's `.timeLimit`, scaled by `VISAGE_TEST_TIME_SCALE` (a whole number,
/// 1 when unset): the limits are set for a native build, and under emulation (Tools/arm64,
/// which sets 30) every test runs some fifty times slower.
public func minutesAllowed(_ minutes: Int) -> Int {
  let scale = ProcessInfo.processInfo.environment["VISAGE_TEST_TIME_SCALE"].flatMap { Int($0) } ?? 1
  return minutes * max(scale, 1)
}
