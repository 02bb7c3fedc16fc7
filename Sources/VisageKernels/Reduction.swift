/// Sums and means over some dimensions of a tensor.
public enum Reduction {
  /// What a reduction computes.
  public enum Kind: String, Hashable, Sendable {
    /// The sum of the reduced values.
    case sum
    /// The arithmetic mean of the reduced values.
    case mean
  }

  /// Reduces with vector accumulators when the reduced axes are adjacent, viewing the input
  /// as [outer, reduced, inner]; other axis sets run the reference.
  public static func optimized(
    _ kind: Kind, _ input: UnsafePointer<Float>, shape: [Int], axes: [Int],
    output: UnsafeMutablePointer<Float>
  ) {
    // Adjacent means every axis from the lowest to the highest, each once (checked without
    // sorting, which would allocate on every run).
    guard let first = axes.min(), let last = axes.max(), last - first + 1 == axes.count,
      (first...last).allSatisfy({ axis in axes.count { $0 == axis } == 1 })
    else {
      return reference(kind, input, shape: shape, axes: axes, output: output)
    }
    let outer = shape[..<first].reduce(1, *)
    let reduced = shape[first...last].reduce(1, *)
    let inner = shape[(last + 1)...].reduce(1, *)
    for o in 0..<outer {
      let block = input + o * reduced * inner
      let out = output + o * inner
      if inner == 1 {
        let total = contiguousSum(block, count: reduced)
        out[0] = kind == .mean ? total / Float(reduced) : total
      } else {
        out.update(from: block, count: inner)
        for r in 1..<max(1, reduced) {
          Elementwise.addRows(out, block + r * inner, out, count: inner)
        }
        if kind == .mean {
          for i in 0..<inner { out[i] /= Float(reduced) }
        }
      }
    }
  }

  /// Sums `count` contiguous values in eight interleaved partial sums.
  static func contiguousSum(_ values: UnsafePointer<Float>, count: Int) -> Float {
    var accumulator = Vector.zero
    var i = 0
    while i + 8 <= count {
      accumulator += values.vector(at: i)
      i += 8
    }
    var total = accumulator.sum()
    while i < count {
      total += values[i]
      i += 1
    }
    return total
  }
}
