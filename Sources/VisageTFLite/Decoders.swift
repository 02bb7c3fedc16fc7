import VisageKernels
import VisageRuntime

/// Turns one file operator into a runtime operator and the float tensors it reads.
typealias Decoder = @Sendable (OperatorRecord) throws(TFLiteError) -> (op: any Operator, inputs: [Int])

/// The registry: every builtin this runtime runs, and how its options and integer inputs
/// become operator fields. DEQUANTIZE has no row: the loader folds it into constants. The
/// elementwise functions need no row: each runs under the builtin its raw value names.
let decoders: [BuiltinOperator: Decoder] = structuredDecoders.merging(elementwiseDecoders) { explicit, _ in explicit }

/// The builtins with options or integer inputs of their own.
private let structuredDecoders: [BuiltinOperator: Decoder] = [
  .conv2D: decodeConv2D,
  .depthwiseConv2D: decodeDepthwiseConv2D,
  .maxPool2D: decodeMaxPool2D,
  .mean: { r throws(TFLiteError) in try reduce(.mean, r) },
  .sum: { r throws(TFLiteError) in try reduce(.sum, r) },
  .pad: decodePad,
  .padV2: decodePad,
  .reshape: decodeReshape,
  .concatenation: decodeConcatenation,
  .transpose: { r throws(TFLiteError) in
    (Transpose(permutation: try r.ints(1, "permutation")), [try r.input(0, "input")])
  },
  .stridedSlice: decodeStridedSlice,
  .resizeBilinear: decodeResizeBilinear,
]

private func decodeConv2D(_ r: OperatorRecord) throws(TFLiteError) -> (op: any Operator, inputs: [Int]) {
  // Conv2DOptions: padding 0, stride_w 1, stride_h 2, activation 3, dilation_w 4, dilation_h 5.
  let op = Conv2D(
    padding: try r.padding(0), strideHeight: try r.int(2, "stride_h"),
    strideWidth: try r.int(1, "stride_w"), dilationHeight: try r.int(5, "dilation_h_factor", default: 1),
    dilationWidth: try r.int(4, "dilation_w_factor", default: 1), clamp: try r.clamp(3))
  return (op, try convolutionInputs(r))
}

private func decodeDepthwiseConv2D(_ r: OperatorRecord) throws(TFLiteError) -> (op: any Operator, inputs: [Int]) {
  // DepthwiseConv2DOptions: padding 0, stride_w 1, stride_h 2, depth_multiplier 3,
  // activation 4, dilation_w 5, dilation_h 6. The multiplier follows from the shapes.
  let op = DepthwiseConv2D(
    padding: try r.padding(0), strideHeight: try r.int(2, "stride_h"),
    strideWidth: try r.int(1, "stride_w"), dilationHeight: try r.int(6, "dilation_h_factor", default: 1),
    dilationWidth: try r.int(5, "dilation_w_factor", default: 1), clamp: try r.clamp(4))
  return (op, try convolutionInputs(r))
}

private func convolutionInputs(_ r: OperatorRecord) throws(TFLiteError) -> [Int] {
  var inputs = [try r.input(0, "input"), try r.input(1, "filter")]
  if let bias = r.optionalInput(2) { inputs.append(bias) }
  return inputs
}

private func decodeMaxPool2D(_ r: OperatorRecord) throws(TFLiteError) -> (op: any Operator, inputs: [Int]) {
  // Pool2DOptions: padding 0, stride_w 1, stride_h 2, filter_width 3, filter_height 4, activation 5.
  let op = MaxPool2D(
    padding: try r.padding(0), strideHeight: try r.int(2, "stride_h"),
    strideWidth: try r.int(1, "stride_w"), filterHeight: try r.int(4, "filter_height"),
    filterWidth: try r.int(3, "filter_width"), clamp: try r.clamp(5))
  return (op, [try r.input(0, "input")])
}

/// A row for every `UnaryFunction` and `BinaryFunction`, keyed by the builtin its raw value
/// names (`ElementwiseDecoderTests` checks that every name is one).
private let elementwiseDecoders: [BuiltinOperator: Decoder] = {
  var rows: [BuiltinOperator: Decoder] = [:]
  for function in UnaryFunction.allCases {
    if let builtin = BuiltinOperator(name: function.rawValue) { rows[builtin] = unaryDecoder(function) }
  }
  for function in BinaryFunction.allCases {
    if let builtin = BuiltinOperator(name: function.rawValue) { rows[builtin] = binaryDecoder(function, builtin) }
  }
  return rows
}()

// Named functions rather than closures written in the loops above: Swift 6.3.1's SILGen
// crashes on a typed-throws closure literal that captures a loop variable there.
private func unaryDecoder(_ function: UnaryFunction) -> Decoder {
  { r throws(TFLiteError) in (Unary(function), [try r.input(0, "input")]) }
}

private func binaryDecoder(_ function: BinaryFunction, _ builtin: BuiltinOperator) -> Decoder {
  // ADD, SUB, MUL and DIV carry TFLite's fused activation as option field 0; the other
  // binary builtins' options (if any) have no fields.
  let activation = builtinsWithFusedActivation.contains(builtin)
  return { r throws(TFLiteError) in
    (
      Binary(function, clamp: activation ? try r.clamp(0) : .none),
      [try r.input(0, "first input"), try r.input(1, "second input")]
    )
  }
}

private let builtinsWithFusedActivation: Set<BuiltinOperator> = [.add, .sub, .mul, .div]

private func reduce(_ kind: Reduction.Kind, _ r: OperatorRecord) throws(TFLiteError) -> (
  op: any Operator, inputs: [Int]
) {
  // ReducerOptions: keep_dims 0.
  let op = Reduce(kind, axes: try r.ints(1, "axes"), keepDimensions: try r.bool(0, "keep_dims"))
  return (op, [try r.input(0, "input")])
}

private func decodePad(_ r: OperatorRecord) throws(TFLiteError) -> (op: any Operator, inputs: [Int]) {
  let flat = try r.ints(1, "paddings")
  guard flat.count % 2 == 0 else {
    throw .malformed(path: "\(r.path).inputs[1]", reason: "paddings must be [rank, 2], got \(flat.count) values")
  }
  let paddings = stride(from: 0, to: flat.count, by: 2).map { (before: flat[$0], after: flat[$0 + 1]) }
  var value: Float = 0
  if let v = r.optionalInput(2) {
    guard let values = r.file.floats(v), values.count == 1 else {
      throw .unsupported(path: "\(r.path).inputs[2]", reason: "the pad value must be a constant float scalar")
    }
    value = values[0]
  }
  return (Pad(paddings: paddings, value: value), [try r.input(0, "input")])
}

private func decodeReshape(_ r: OperatorRecord) throws(TFLiteError) -> (op: any Operator, inputs: [Int]) {
  // The shape comes from the second input when it is a constant, else ReshapeOptions.new_shape (0).
  let shape: [Int]
  if r.optionalInput(1) != nil, let values = r.file.ints(r.entry.inputs[1]) {
    shape = values
  } else if let values = try r.options?.int32s(0, "new_shape") {
    shape = values
  } else {
    throw .unsupported(path: r.path, reason: "RESHAPE needs a constant shape input or new_shape option")
  }
  return (Reshape(newShape: shape), [try r.input(0, "input")])
}

private func decodeConcatenation(_ r: OperatorRecord) throws(TFLiteError) -> (op: any Operator, inputs: [Int]) {
  // ConcatenationOptions: axis 0, activation 1.
  guard try r.clamp(1) == .none else {
    throw .unsupported(path: "\(r.path).builtin_options", reason: "CONCATENATION with a fused activation")
  }
  var inputs: [Int] = []
  for k in r.entry.inputs.indices { inputs.append(try r.input(k, "input \(k)")) }
  return (Concatenation(axis: try r.int(0, "axis")), inputs)
}

private func decodeStridedSlice(_ r: OperatorRecord) throws(TFLiteError) -> (op: any Operator, inputs: [Int]) {
  // StridedSliceOptions: begin_mask 0, end_mask 1, ellipsis_mask 2, new_axis_mask 3,
  // shrink_axis_mask 4, offset 5.
  guard try r.int(2, "ellipsis_mask") == 0, try r.int(3, "new_axis_mask") == 0 else {
    throw .unsupported(path: "\(r.path).builtin_options", reason: "STRIDED_SLICE ellipsis or new-axis masks")
  }
  let op = StridedSlice(
    begin: try r.ints(1, "begin"), end: try r.ints(2, "end"), strides: try r.ints(3, "strides"),
    beginMask: try r.int(0, "begin_mask"), endMask: try r.int(1, "end_mask"),
    shrinkAxisMask: try r.int(4, "shrink_axis_mask"), offset: try r.bool(5, "offset"))
  return (op, [try r.input(0, "input")])
}

private func decodeResizeBilinear(_ r: OperatorRecord) throws(TFLiteError) -> (op: any Operator, inputs: [Int]) {
  // ResizeBilinearOptions: align_corners 2, half_pixel_centers 3.
  let size = try r.ints(1, "size")
  guard size.count == 2 else {
    throw .malformed(path: "\(r.path).inputs[1]", reason: "size must hold 2 values, got \(size.count)")
  }
  let options = Resampling.Options(
    alignCorners: try r.bool(2, "align_corners"), halfPixelCenters: try r.bool(3, "half_pixel_centers"))
  return (ResizeBilinear(height: size[0], width: size[1], options: options), [try r.input(0, "input")])
}
