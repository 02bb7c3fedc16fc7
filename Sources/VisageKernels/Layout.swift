/// Kernels that only move values: strided copies (transpose, strided slice), padding and
/// concatenation. Each has one implementation, which is its own reference, except the
/// eight-rows-at-a-time transpose of the last two dimensions, whose twin is `stridedCopy`.
public enum Layout {
  /// Row-major element strides of `shape`.
  public static func strides(_ shape: [Int]) -> [Int] {
    var strides = [Int](repeating: 1, count: shape.count)
    var step = 1
    for d in stride(from: shape.count - 1, through: 0, by: -1) {
      strides[d] = step
      step *= shape[d]
    }
    return strides
  }

  /// Calls `body(row, a, b)` for every position of `shape`'s dimensions before the last, in
  /// row-major order: `row` counts positions from 0, and `a` and `b` are the position's
  /// offsets Σ index[d]·first[d] and Σ index[d]·second[d]. The odometer lives on the stack,
  /// so a run allocates nothing.
  @inlinable public static func forEachRow(
    _ shape: [Int], _ first: [Int], _ second: [Int], _ body: (Int, Int, Int) -> Void
  ) {
    let rank = shape.count
    guard rank > 1 else { return body(0, 0, 0) }
    let rows = shape.dropLast().reduce(1, *)
    guard rows > 0 else { return }
    withUnsafeTemporaryAllocation(of: Int.self, capacity: rank - 1) { index in
      index.initialize(repeating: 0)
      var (a, b) = (0, 0)
      for row in 0..<rows {
        body(row, a, b)
        var d = rank - 2
        while d >= 0 {
          index[d] += 1
          a += first[d]
          b += second[d]
          if index[d] < shape[d] { break }
          a -= first[d] * shape[d]
          b -= second[d] * shape[d]
          index[d] = 0
          d -= 1
        }
      }
    }
  }

  /// Writes `output` in row-major order of `outputShape`, reading the input at
  /// `base + Σ index[d]·inputStrides[d]`.
  ///
  /// A transpose permutes the input's strides; a strided slice scales them and moves `base`.
  public static func stridedCopy(
    _ input: UnsafePointer<Float>, base: Int, inputStrides: [Int], outputShape: [Int],
    output: UnsafeMutablePointer<Float>
  ) {
    let rank = outputShape.count
    guard rank > 0 else {
      output[0] = input[base]
      return
    }
    let n = outputShape[rank - 1]
    let step = inputStrides[rank - 1]
    guard n > 0 else { return }
    forEachRow(outputShape, inputStrides, inputStrides) { row, offset, _ in
      let out = output + row * n
      if step == 1 {
        out.update(from: input + base + offset, count: n)
      } else {
        for i in 0..<n { out[i] = input[base + offset + i * step] }
      }
    }
  }

  /// Copies an input into the middle of an output grown by `paddings[d]` = (before, after)
  /// along each dimension, filling the rest with a value (TFLite's PAD and PADV2). Made
  /// once per shape, so a run only copies.
  public struct PaddedCopy: Sendable {
    /// The input's shape.
    public let shape: [Int]
    /// Values in the output.
    public let outputCount: Int
    private let outputStrides: [Int]
    /// Where the input's first value lands in the output.
    private let base: Int

    /// Plans padding an input of `shape` by `paddings` (one pair per dimension).
    public init(shape: [Int], paddings: [(before: Int, after: Int)]) {
      let outputShape = zip(shape, paddings).map { $0 + $1.before + $1.after }
      self.shape = shape
      outputCount = outputShape.reduce(1, *)
      outputStrides = Layout.strides(outputShape)
      base = zip(paddings, outputStrides).reduce(0) { $0 + $1.0.before * $1.1 }
    }

    /// Writes the padded input to `output`.
    public func callAsFunction(_ input: UnsafePointer<Float>, value: Float, output: UnsafeMutablePointer<Float>) {
      output.update(repeating: value, count: outputCount)
      guard shape.allSatisfy({ $0 > 0 }) else { return }
      guard let n = shape.last else {
        output[0] = input[0]
        return
      }
      // The input's rows go through the output's strides: the inverse of a strided read.
      Layout.forEachRow(shape, outputStrides, outputStrides) { row, offset, _ in
        (output + base + offset).update(from: input + row * n, count: n)
      }
    }
  }

  /// Joins inputs along `axis`: for each position before the axis, each input's block of
  /// `shape[axis]·inner` values in turn.
  public static func concatenate(
    _ inputs: [(pointer: UnsafePointer<Float>, shape: [Int])], axis: Int,
    output: UnsafeMutablePointer<Float>
  ) {
    guard let first = inputs.first else { return }
    let outer = first.shape[..<axis].reduce(1, *)
    let inner = first.shape[(axis + 1)...].reduce(1, *)
    var out = output
    for o in 0..<outer {
      for input in inputs {
        let block = input.shape[axis] * inner
        out.update(from: input.pointer + o * block, count: block)
        out += block
      }
    }
  }
}

extension Layout {
  /// Swaps the last two dimensions of `batches` blocks of `rows` × `columns` values:
  /// output[b][c][r] = epilogue(input[b][r][c]), the epilogue's channels being the output's
  /// last dimension (r) and its residual, when given, of the output's shape (a following ADD
  /// folded in; each output is one addition, as the ADD computes it). Eight rows at a time,
  /// so each output row gets contiguous eight-value stores. `part`, if given, limits the
  /// work to those input rows of every block, so threads can share it.
  public static func transposeLastTwo(
    _ input: UnsafePointer<Float>, batches: Int, rows: Int, columns: Int,
    epilogue: Epilogue.Bound = Epilogue.Bound(), output: UnsafeMutablePointer<Float>, part: Range<Int>? = nil
  ) {
    let size = rows * columns
    let part = part ?? 0..<rows
    for b in 0..<batches {
      let x = input + b * size
      let out = output + b * size
      var r = part.lowerBound
      while r + 8 <= part.upperBound {
        let block = x + r * columns
        for c in 0..<columns {
          var values = Vector.zero
          for k in 0..<8 { values[k] = block[k * columns + c] }
          out.store(epilogue(values, channel: r, residualAt: b * size + c * rows + r), at: c * rows + r)
        }
        r += 8
      }
      while r < part.upperBound {
        for c in 0..<columns {
          out[c * rows + r] = epilogue(x[r * columns + c], channel: r, residualAt: b * size + c * rows + r)
        }
        r += 1
      }
    }
  }
}
