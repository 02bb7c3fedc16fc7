import VisageKernels

/// A 1×1 convolution across rows instead of channels: for each k×n matrix X held in the
/// input's last two dimensions, `Y = clamp(F · X + bias (+ residual))`, where F is the m×k
/// filter of a 1×1 CONV_2D (OHWI `[m, 1, 1, k]`). The output's last two dimensions are m×n.
///
/// Not a TFLite builtin: it is TRANSPOSE → CONV_2D → TRANSPOSE computed without the
/// transposes, which `Graph.fusingRowMixing()` puts in their place (the blendshapes
/// model's token mixing). Inputs: X, filter, optional bias, then the residual when the
/// epilogue adds one (a tensor of the output's shape, added after the bias, before the clamp).
public struct RowMixing: Operator {
  /// The convolution's clamp, and a residual when the closing TRANSPOSE had one folded in.
  public var epilogue: Epilogue

  /// Creates the operator.
  public init(epilogue: Epilogue = .none) {
    self.epilogue = epilogue
  }

  public var name: String { "ROW_MIXING" }

  /// Matrices, rows out (m), rows in (k) and columns (n), or an error saying what does not fit.
  private func dimensions(_ inputs: [Shape]) throws(RuntimeError) -> (groups: Int, m: Int, k: Int, n: Int) {
    let operands = epilogue.addsResidual ? inputs.dropLast() : inputs[...]
    guard operands.count == 2 || operands.count == 3 else {
      throw .invalidOperator("\(name) takes input, filter and optional bias, got \(operands.count) inputs")
    }
    let x = inputs[0]
    let filter = inputs[1]
    guard x.rank >= 2, filter.rank == 4, filter[1] == 1, filter[2] == 1, filter[3] == x[x.rank - 2] else {
      throw .invalidOperator("\(name) needs a 1×1 filter over the rows of its input, got \(filter) for \(x)")
    }
    if operands.count == 3, inputs[2].count != filter[0] {
      throw .invalidOperator("\(name) bias \(inputs[2]) does not match \(filter[0]) output rows")
    }
    let n = x[x.rank - 1]
    return (x.count / max(1, x[x.rank - 2] * n), filter[0], filter[3], n)
  }

  public func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape {
    let d = try dimensions(inputs)
    var dims = inputs[0].dimensions
    dims[dims.count - 2] = d.m
    let shape = Shape(dims)
    guard epilogue.slopes == nil, !epilogue.transposesOutput else {
      throw .invalidOperator("\(name) cannot apply the epilogue \(epilogue)")
    }
    if epilogue.addsResidual, inputs.last != shape {
      throw .invalidOperator("\(name) residual \(inputs.last!) does not match its output \(shape)")
    }
    return shape
  }

  public func multiplyAdds(_ inputs: [Shape]) -> Int {
    guard let d = try? dimensions(inputs) else { return 0 }
    return d.groups * d.m * d.k * d.n
  }

  public func prepare(_ context: OperatorContext) throws(RuntimeError) -> Step {
    let (groups, m, k, n) = try dimensions(context.inputShapes)
    let filter = try context.constant(1, "\(name) filter")
    let hasBias = context.inputShapes.count - (epilogue.addsResidual ? 1 : 0) == 3
    if hasBias { _ = try context.constant(2, "\(name) bias") }
    let (input, output) = (context.inputs[0], context.output)
    let residual = epilogue.addsResidual ? context.inputs.last : nil
    let bound = Epilogue.Bound(bias: hasBias ? context.inputs[2] : nil, clamp: epilogue.clamp)
    let (inputSize, outputSize) = (k * n, m * n)
    guard context.implementation != .reference, n % 16 == 0 else {
      // The convolution's arithmetic, then a folded ADD as its own pass.
      let filterPointer = context.inputs[1]
      let own = Epilogue.Bound(bias: bound.bias, clamp: residual == nil ? bound.clamp : .none)
      return {
        for g in 0..<groups {
          LeftPackedGEMM.reference(
            m: m, n: n, k: k, a: filterPointer, lda: k, x: input + g * inputSize, ldx: n, epilogue: own,
            c: output + g * outputSize, ldc: n)
          bound.with(residual: residual.map { $0 + g * outputSize })
            .applySeparately(to: output + g * outputSize, rows: m, channels: n)
        }
      }
    }
    let gemm = filter.values.withUnsafeBufferPointer {
      LeftPackedGEMM(a: $0.baseAddress!, m: m, k: k, lda: k, epilogue: bound)
    }
    // Panels of eight output rows go to threads.
    let parts = context.parts(of: gemm.panelCount, Work(.rowMixing, groups * m * k * n))
    return context.step(over: parts) { part in
      for g in 0..<groups {
        gemm.multiply(
          n: n, x: input + g * inputSize, ldx: n, c: output + g * outputSize, ldc: n,
          residual: residual.map { $0 + g * outputSize }, panels: parts[part])
      }
    }
  }
}
