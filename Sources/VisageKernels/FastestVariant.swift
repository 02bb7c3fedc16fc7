/// Picks, once per process, the fastest of a kernel's interchangeable variants (tile shapes
/// that give the same bits) on this CPU: which one wins depends on its vector registers,
/// and the instruction-set level alone does not say it well enough.
enum FastestVariant {
  /// The index of the variant to keep, `run(i)` running variant `i` once on a small problem.
  ///
  /// Round robin, so that a busy moment slows every variant alike; the minimum of many runs,
  /// after a few untimed rounds that let the core reach speed. Variant 0 is the default
  /// and another replaces it only by being more than 10% faster, so that noise cannot
  /// swap it for a near tie.
  static func index(of count: Int, _ run: (Int) -> Void) -> Int {
    let clock = ContinuousClock()
    var fastest = [Duration](repeating: .seconds(1), count: count)
    for round in 0..<80 {
      for i in 0..<count {
        let time = clock.measure { run(i) }
        if round >= 10 { fastest[i] = min(fastest[i], time) }
      }
    }
    var best = 0
    for i in 1..<count where fastest[i] < fastest[best] * 0.9 { best = i }
    return best
  }
}
