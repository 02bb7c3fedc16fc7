/// What an operator does to its results on the way out, in the order the separate TFLite
/// operators it stands for would do it: add the operator's bias, add a residual (a folded
/// ADD, possibly of a zero PAD of the channels), clamp (the fused activation, or a folded
/// RELU / RELU6), apply a per-channel PReLU (a folded PRELU), and write the result with
/// its last two dimensions swapped (a folded TRANSPOSE).
///
/// This is the graph-level description an operator carries (`Conv2D.epilogue`, ...); the
/// bias and the residual are tensors the node reads, so here they are only flags. Kernels
/// take the same steps bound to memory as an `Epilogue.Bound`.
public struct Epilogue: Hashable, Sendable {
  /// Whether the node's last input is a tensor added after the bias, before the clamp.
  public var addsResidual: Bool
  /// The clamp after the bias and the residual.
  public var clamp: Clamp
  /// Per-output-channel PReLU slopes applied after the clamp, if any.
  public var slopes: [Float]?
  /// Whether the output is written with its last two dimensions swapped.
  public var transposesOutput: Bool

  /// An epilogue of the given steps (by default none).
  public init(
    addsResidual: Bool = false, clamp: Clamp = .none, slopes: [Float]? = nil, transposesOutput: Bool = false
  ) {
    self.addsResidual = addsResidual
    self.clamp = clamp
    self.slopes = slopes
    self.transposesOutput = transposesOutput
  }

  /// Nothing after the operator's own arithmetic.
  public static let none = Epilogue()

  /// Whether only a clamp (TFLite's own fused activation) is present: nothing was folded in.
  public var isClampOnly: Bool { !addsResidual && slopes == nil && !transposesOutput }
}

extension Epilogue {
  /// The epilogue's arithmetic bound to memory, as kernels apply it to one value or eight.
  ///
  /// Per-channel values (`bias`, `slopes`) are indexed by the channel a kernel passes;
  /// the residual by the offset it passes, and only for channels below `residualChannels`
  /// (the rest get +0, as after a zero PAD of the channels). A missing bias or residual is
  /// not added at all (adding +0 would turn -0 into +0).
  // Threads: the pointers are only read, by the pool's threads on disjoint channels and rows.
  public struct Bound {
    /// One value per channel, or nil.
    public var bias: UnsafePointer<Float>?
    /// The residual, or nil.
    public var residual: UnsafePointer<Float>?
    /// Channels that have a residual value; those past it get +0.
    public var residualChannels: Int
    /// The clamp after the bias and the residual.
    public var clamp: Clamp
    /// One PReLU slope per channel, or nil.
    public var slopes: UnsafePointer<Float>?

    /// Binds the steps; `residualChannels` defaults to every channel.
    public init(
      bias: UnsafePointer<Float>? = nil, residual: UnsafePointer<Float>? = nil, residualChannels: Int = .max,
      clamp: Clamp = .none, slopes: UnsafePointer<Float>? = nil
    ) {
      self.bias = bias
      self.residual = residual
      self.residualChannels = residualChannels
      self.clamp = clamp
      self.slopes = slopes
    }

    /// The same steps with another residual (or none).
    public func with(residual: UnsafePointer<Float>?, channels: Int = .max) -> Bound {
      var copy = self
      copy.residual = residual
      copy.residualChannels = channels
      return copy
    }

    /// One finished value: `sum` of channel `channel`, whose residual (if any) is at
    /// `residual[offset]`.
    @inlinable @inline(__always)
    public func callAsFunction(_ sum: Float, channel: Int, residualAt offset: Int) -> Float {
      var v = sum
      if let bias { v = v + bias[channel] }
      if let residual { v = v + (channel < residualChannels ? residual[offset] : 0) }
      v = clamp(v)
      if let slopes { v = v >= 0 ? v : v * slopes[channel] }
      return v
    }

    /// Eight finished values: channels `channel..<channel + 8`, whose residual values (if
    /// any) start at `residual[offset]`.
    @inlinable @inline(__always)
    public func callAsFunction(_ sum: Vector, channel: Int, residualAt offset: Int) -> Vector {
      var v = sum
      if let bias { v = v + bias.vector(at: channel) }
      if let residual {
        if channel + 8 <= residualChannels {
          v = v + residual.vector(at: offset)
        } else {
          var extra = Vector.zero
          for lane in 0..<8 where channel + lane < residualChannels { extra[lane] = residual[offset + lane] }
          v = v + extra
        }
      }
      v = clamp(v)
      if let slopes { v = v.replacing(with: v * slopes.vector(at: channel), where: v .< Vector()) }
      return v
    }

    /// Finishes `rows` rows of `channels` sums in place (row stride `channels`; the
    /// residual's row stride is `residualChannels`, or `channels` when it has them all).
    public func apply(to data: UnsafeMutablePointer<Float>, rows: Int, channels: Int) {
      let stride = min(residualChannels, channels)
      for r in 0..<rows {
        let row = data + r * channels
        let base = r * stride
        var c = 0
        while c + 8 <= channels {
          row.store(self(row.vector(at: c), channel: c, residualAt: base + c), at: c)
          c += 8
        }
        while c < channels {
          row[c] = self(row[c], channel: c, residualAt: base + c)
          c += 1
        }
      }
    }

    /// The clamp the operator itself applies when the epilogue runs as separate steps:
    /// its fused activation, or none when a folded ADD follows it (the clamp is the ADD's).
    public var operatorClamp: Clamp { residual == nil ? clamp : .none }

    /// The folded steps after an operator that has already added its bias and applied
    /// `operatorClamp`, run as TFLite runs them: the ADD of the residual (with the clamp),
    /// then the PRELU, each one pass over the `rows` × `channels` output.
    public func applySeparately(to data: UnsafeMutablePointer<Float>, rows: Int, channels: Int) {
      if let residual {
        let stride = min(residualChannels, channels)
        for r in 0..<rows {
          for c in 0..<channels {
            let extra = c < stride ? residual[r * stride + c] : 0
            data[r * channels + c] = clamp(data[r * channels + c] + extra)
          }
        }
      }
      if let slopes {
        for i in 0..<(rows * channels) {
          let x = data[i]
          data[i] = x >= 0 ? x : x * slopes[i % channels]
        }
      }
    }
  }
}
