import VisageRuntime

/// Seeded test data from `SplitMix64`, so every run and every machine draws the same values.
public struct RandomSource {
  private var generator: SplitMix64

  /// Creates a source; a grid case passes its index as the seed.
  public init(seed: UInt64) { generator = SplitMix64(seed: seed) }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 { generator.next() }

  /// `count` floats uniform in `range`.
  public mutating func floats(_ count: Int, in range: ClosedRange<Float> = -1...1) -> [Float] {
    generator.floats(count, in: range)
  }

  /// An integer uniform in `range` (which must not be empty).
  public mutating func int(in range: Range<Int>) -> Int {
    range.lowerBound + Int(generator.next() % UInt64(range.count))
  }

  /// `count` floats whose magnitude lies in `magnitude`, each with a random sign: values
  /// that are safe to divide by.
  public mutating func signedFloats(_ count: Int, magnitude: ClosedRange<Float>) -> [Float] {
    (0..<count).map { _ in
      let m = generator.floats(1, in: magnitude)[0]
      return generator.next() & 1 == 0 ? m : -m
    }
  }
}

/// The product of a shape's dimensions (1 for a scalar).
public func elementCount(_ shape: [Int]) -> Int { shape.reduce(1, *) }
