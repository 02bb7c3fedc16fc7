/// A small, fast, seedable random generator (Steele, Lea & Flood's SplitMix64), so that
/// tests and benchmarks draw the same inputs on every machine.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// Creates a generator; equal seeds give equal sequences.
  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A float uniform in [0, 1), from the top 24 bits.
  public mutating func nextFloat() -> Float { Float(next() >> 40) / Float(1 << 24) }

  /// `count` floats uniform in `range`.
  public mutating func floats(_ count: Int, in range: ClosedRange<Float> = -1...1) -> [Float] {
    (0..<count).map { _ in range.lowerBound + (range.upperBound - range.lowerBound) * nextFloat() }
  }
}
