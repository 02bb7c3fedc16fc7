import VisageKernels
import VisageRuntime

/// Turns one file operator into a runtime operator and the float tensors it reads.
typealias Decoder = @Sendable (OperatorRecord) throws(TFLiteError) -> (op: any Operator, inputs: [Int])

/// The registry: every builtin this runtime runs, and how its options and integer inputs
/// become operator fields. DEQUANTIZE has no row: the loader folds it into constants.
let decoders: [BuiltinOperator: Decoder] = [
  .conv2D: decodeConv2D,
  .depthwiseConv2D: decodeDepthwiseConv2D,
  .maxPool2D: decodeMaxPool2D,
  .add: { r throws(TFLiteError) in try binary(.add, r, clampField: 0) },
  .sub: { r throws(TFLiteError) in try binary(.subtract, r, clampField: 0) },
  .mul: { r throws(TFLiteError) in try binary(.multiply, r, clampField: 0) },
  .div: { r throws(TFLiteError) in try binary(.divide, r, clampField: 0) },
  .squaredDifference: { r throws(TFLiteError) in try binary(.squaredDifference, r, clampField: nil) },
  .prelu: { r throws(TFLiteError) in try binary(.prelu, r, clampField: nil) },
  .maximum: { r throws(TFLiteError) in try binary(.maximum, r, clampField: nil) },
  .minimum: { r throws(TFLiteError) in try binary(.minimum, r, clampField: nil) },
  .relu: { r throws(TFLiteError) in (Unary(.relu), [try r.input(0, "input")]) },
  .relu6: { r throws(TFLiteError) in (Unary(.relu6), [try r.input(0, "input")]) },
  .logistic: { r throws(TFLiteError) in (Unary(.logistic), [try r.input(0, "input")]) },
  .tanh: { r throws(TFLiteError) in (Unary(.tanh), [try r.input(0, "input")]) },
  .neg: { r throws(TFLiteError) in (Unary(.negate), [try r.input(0, "input")]) },
  .sqrt: { r throws(TFLiteError) in (Unary(.squareRoot), [try r.input(0, "input")]) },
  .rsqrt: { r throws(TFLiteError) in (Unary(.reciprocalSquareRoot), [try r.input(0, "input")]) },
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

private func binary(
  _ function: BinaryFunction, _ r: OperatorRecord, clampField: Int?
) throws(TFLiteError) -> (op: any Operator, inputs: [Int]) {
  let clamp = try clampField.map { (id: Int) throws(TFLiteError) -> Clamp in try r.clamp(id) } ?? .none
  return (Binary(function, clamp: clamp), [try r.input(0, "first input"), try r.input(1, "second input")])
}

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
