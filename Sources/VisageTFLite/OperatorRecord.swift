import VisageKernels
import VisageRuntime

/// One operator of a model file, with helpers that read its options and integer inputs and
/// say exactly where a problem is.
struct OperatorRecord {
  let entry: ModelFile.OperatorEntry
  let file: ModelFile

  var path: String { entry.path }

  /// The tensor index of required input `k`.
  func input(_ k: Int, _ what: String) throws(TFLiteError) -> Int {
    guard k < entry.inputs.count, entry.inputs[k] >= 0 else {
      throw .malformed(path: "\(path).inputs[\(k)]", reason: "missing \(what)")
    }
    return entry.inputs[k]
  }

  /// Input `k` if present (TFLite marks an absent optional input with -1).
  func optionalInput(_ k: Int) -> Int? {
    k < entry.inputs.count && entry.inputs[k] >= 0 ? entry.inputs[k] : nil
  }

  /// The values of input `k`, which must be a constant INT32 tensor.
  func ints(_ k: Int, _ what: String) throws(TFLiteError) -> [Int] {
    let index = try input(k, what)
    guard let values = file.ints(index) else {
      throw .unsupported(
        path: "\(path).inputs[\(k)]", reason: "\(what) must be a constant INT32 tensor")
    }
    return values
  }

  /// The options table; absent options read as all defaults.
  var options: FlatTable? { entry.options }

  func int(_ id: Int, _ name: String, default value: Int32 = 0) throws(TFLiteError) -> Int {
    Int(try options?.scalar(id, name, default: value) ?? value)
  }

  func bool(_ id: Int, _ name: String) throws(TFLiteError) -> Bool {
    try options?.bool(id, name) ?? false
  }

  /// A `Padding` byte field.
  func padding(_ id: Int) throws(TFLiteError) -> Padding {
    switch try int8(id, "padding") {
    case 0: return .same
    case 1: return .valid
    case let other:
      throw .malformed(path: "\(path).builtin_options.padding", reason: "unknown padding \(other)")
    }
  }

  /// An `ActivationFunctionType` byte field, as a clamp.
  func clamp(_ id: Int) throws(TFLiteError) -> Clamp {
    switch try int8(id, "fused_activation_function") {
    case 0: return .none
    case 1: return .relu
    case 2: return .reluN1To1
    case 3: return .relu6
    case let other:
      let name = other == 4 ? "TANH" : other == 5 ? "SIGN_BIT" : "\(other)"
      throw .unsupported(path: "\(path).builtin_options.fused_activation_function", reason: "fused activation \(name)")
    }
  }

  private func int8(_ id: Int, _ name: String) throws(TFLiteError) -> Int8 {
    try options?.scalar(id, name, default: Int8(0)) ?? 0
  }
}
