import VisageKernels

/// A broadcasting two-input operator: ADD, SUB, MUL, DIV, SQUARED_DIFFERENCE, PRELU.
public struct Binary: Operator {
  /// The function applied to each pair of values.
  public var function: BinaryFunction
  /// TFLite's fused activation (or a folded RELU / RELU6) as the clamp; nothing else.
  public var epilogue: Epilogue

  /// The epilogue's clamp.
  public var clamp: Clamp {
    get { epilogue.clamp }
    set { epilogue.clamp = newValue }
  }

  /// Creates the operator for `function` followed by `clamp`.
  public init(_ function: BinaryFunction, clamp: Clamp = .none) {
    self.function = function
    self.epilogue = Epilogue(clamp: clamp)
  }

  public var name: String { function.rawValue }

  func broadcast(_ inputs: [Shape]) throws(RuntimeError) -> Broadcast {
    guard inputs.count == 2 else { throw .invalidOperator("\(name) takes two inputs, got \(inputs.count)") }
    guard let broadcast = Broadcast(lhs: inputs[0].dimensions, rhs: inputs[1].dimensions) else {
      throw .invalidOperator("\(name) cannot broadcast \(inputs[0]) with \(inputs[1])")
    }
    return broadcast
  }

  public func outputShape(_ inputs: [Shape]) throws(RuntimeError) -> Shape {
    guard epilogue.isClampOnly else {
      throw .invalidOperator("\(name) can only clamp, not apply the epilogue \(epilogue)")
    }
    return Shape(try broadcast(inputs).outputShape)
  }

  public func prepare(_ context: OperatorContext) throws(RuntimeError) -> Step {
    let broadcast = try broadcast(context.inputShapes)
    let lhs = context.inputs[0]
    let rhs = context.inputs[1]
    let output = context.output
    let (function, clamp) = (function, clamp)
    if context.implementation == .reference {
      return {
        Elementwise.reference(function, broadcast, lhs: lhs, rhs: rhs, clamp: clamp, output: output)
      }
    }
    let coalesced = broadcast.coalesced
    // Inputs of one shape are one run of values, which threads can share in whole cache
    // lines; any other broadcast stays on one thread.
    let count = context.outputShape.count
    let sameShape = coalesced.outputShape == [count] && coalesced.lhsStrides == [1] && coalesced.rhsStrides == [1]
    let parts = sameShape ? context.parts(of: count, Work(.elementwise, count), alignment: 16) : [0..<count]
    guard parts.count > 1 else {
      return {
        Elementwise.optimized(function, coalesced, lhs: lhs, rhs: rhs, clamp: clamp, output: output)
      }
    }
    let pieces = parts.map { Broadcast(lhs: [$0.count], rhs: [$0.count])! }
    return context.step(over: parts) { part in
      let start = parts[part].lowerBound
      Elementwise.optimized(
        function, pieces[part], lhs: lhs + start, rhs: rhs + start, clamp: clamp, output: output + start)
    }
  }
}
