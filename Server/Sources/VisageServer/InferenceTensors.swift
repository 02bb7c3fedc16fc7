import Foundation
import VisageReports
import VisageRuntime

/// An inference request's body (`POST /v2/models/{name}/infer`) read and checked against its
/// model: the inputs as tensors in the model's order, and the outputs to answer, each as JSON
/// or as binary data.
///
/// The body is the protocol's JSON object, or, with the binary tensor data extension (an
/// `Inference-Header-Content-Length` header), that object followed by the raw little-endian
/// bytes of the inputs whose `parameters.binary_data_size` says so, in the order of `inputs`.
/// Every size is checked before anything is allocated from it, and every shape against the
/// model's, so a body cannot ask for more memory than it has bytes.
struct InferenceRequest {
  /// The request's `id`, given back in the response.
  let id: String?
  /// One tensor per model input, in the model's order.
  let inputs: [Tensor]
  /// The outputs to answer, in the response's order: the model's output index, and whether
  /// its data goes after the JSON as bytes.
  let outputs: [(index: Int, binary: Bool)]

  /// The one datatype the runtime runs: every input and output of a model it loads is FP32.
  static let datatype = "FP32"
  /// The deepest nesting of `data` arrays read (the bundled models' inputs have rank 4).
  static let maximumDataDepth = 16

  /// Reads `body` for `model`; `headerLength` is the `Inference-Header-Content-Length`
  /// header's value, if any.
  init(body: [UInt8], headerLength: String?, model: InferenceModel) throws(InferenceError) {
    var jsonEnd = body.count
    if let headerLength {
      guard let length = Int(headerLength.trimmingCharacters(in: .whitespaces)), length >= 0, length <= body.count
      else {
        throw .badRequest(
          "Inference-Header-Content-Length is '\(headerLength)': it must be a byte count within the body's \(body.count)"
        )
      }
      jsonEnd = length
    }
    let header: Header
    let decoder = JSONDecoder()
    // `data` stops growing past the largest input, so that a body of numbers costs no more
    // than the model's own inputs once read.
    decoder.userInfo[TensorData.maximumCount] = model.inputs.map(\.shape.count).max() ?? 0
    do { header = try decoder.decode(Header.self, from: Data(body[..<jsonEnd])) } catch {
      throw .badRequest("the body is not an inference request: \(Self.describe(error))")
    }
    id = header.id
    inputs = try Self.tensors(header.inputs, binary: body[jsonEnd...], hasBinaryPart: headerLength != nil, model)
    outputs = try Self.outputs(header, model)
  }

  /// The inputs as tensors in the model's order, from their `data` or their bytes in `binary`.
  private static func tensors(
    _ given: [Header.Input], binary: ArraySlice<UInt8>, hasBinaryPart: Bool, _ model: InferenceModel
  ) throws(InferenceError) -> [Tensor] {
    var tensors = [Tensor?](repeating: nil, count: model.inputs.count)
    var offset = binary.startIndex
    for input in given {
      guard let index = model.inputs.firstIndex(where: { $0.name == input.name }) else {
        throw .badRequest(
          "the model \(model.name) has no input named '\(input.name)'; its inputs are \(Self.list(model.inputs))")
      }
      guard tensors[index] == nil else { throw .badRequest("the input '\(input.name)' is given twice") }
      let expected = model.inputs[index].shape
      guard input.datatype == datatype else {
        throw .badRequest("the input '\(input.name)' takes \(datatype); got datatype '\(input.datatype)'")
      }
      // Compared whole before anything is sized from it: a giant shape is only unequal.
      guard input.shape == expected.dimensions else {
        throw .badRequest("the input '\(input.name)' takes shape \(expected); got shape \(input.shape)")
      }
      let count = expected.count
      let values: [Float]
      switch (input.data, try input.binarySize()) {
      case (.some, .some):
        throw .badRequest("the input '\(input.name)' has both data and parameters.binary_data_size")
      case (nil, nil):
        throw .badRequest("the input '\(input.name)' has no data (nor parameters.binary_data_size)")
      case (let data?, nil):
        guard data.values.count == count else {
          throw .badRequest(
            "the input '\(input.name)' needs \(count) values for shape \(expected); got \(data.values.count)")
        }
        values = data.values.map(Float.init)
        // JSON has no NaN or infinity; a number beyond FP32's range would become one.
        if let i = values.firstIndex(where: { !$0.isFinite }) {
          throw .badRequest("the input '\(input.name)' has \(data.values[i]) at \(i), beyond FP32's range")
        }
      case (nil, let size?):
        guard hasBinaryPart else {
          throw .badRequest(
            "the input '\(input.name)' has parameters.binary_data_size but the request has no Inference-Header-Content-Length"
          )
        }
        guard size == count * 4 else {
          throw .badRequest(
            "the input '\(input.name)' needs \(count * 4) bytes (\(count) FP32 values); binary_data_size is \(size)")
        }
        guard binary.endIndex - offset >= size else {
          throw .badRequest(
            "the input '\(input.name)' needs \(size) bytes of binary data; \(binary.endIndex - offset) are left")
        }
        values = Self.floats(binary[offset..<(offset + size)])
        offset += size
      }
      do { tensors[index] = try Tensor(shape: expected, values: values) } catch {
        throw .badRequest("the input '\(input.name)' does not make a tensor of shape \(expected): \(error)")
      }
    }
    guard offset == binary.endIndex else {
      throw .badRequest(
        "the body has \(binary.endIndex - offset) bytes after the inputs' binary data (binary_data_size)")
    }
    let missing = model.inputs.indices.filter { tensors[$0] == nil }
    guard missing.isEmpty else {
      throw .badRequest("missing input\(missing.count == 1 ? "" : "s"): \(Self.list(missing.map { model.inputs[$0] }))")
    }
    return tensors.compactMap { $0 }
  }

  /// Little-endian FP32 values.
  private static func floats(_ bytes: ArraySlice<UInt8>) -> [Float] {
    var values = [Float](repeating: 0, count: bytes.count / 4)
    var i = bytes.startIndex
    for k in values.indices {
      let bits = UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
      values[k] = Float(bitPattern: bits)
      i += 4
    }
    return values
  }

  /// The outputs asked for (all when `outputs` is absent or empty), each binary when its
  /// `binary_data` says so, or else when the request's `binary_data_output` does.
  private static func outputs(_ header: Header, _ model: InferenceModel) throws(InferenceError)
    -> [(index: Int, binary: Bool)]
  {
    let binaryByDefault = try flag(header.parameters, "binary_data_output", of: "the request") ?? false
    guard let asked = header.outputs, !asked.isEmpty else {
      return model.outputs.indices.map { (index: $0, binary: binaryByDefault) }
    }
    var chosen: [(index: Int, binary: Bool)] = []
    for output in asked {
      guard let index = model.outputs.firstIndex(where: { $0.name == output.name }) else {
        throw .badRequest(
          "the model \(model.name) has no output named '\(output.name)'; its outputs are \(Self.list(model.outputs))")
      }
      guard !chosen.contains(where: { $0.index == index }) else {
        throw .badRequest("the output '\(output.name)' is asked for twice")
      }
      if output.parameters?["classification"] != nil {
        throw .badRequest("the output '\(output.name)' asks for classification, which this server does not do")
      }
      let binary = try flag(output.parameters, "binary_data", of: "the output '\(output.name)'") ?? binaryByDefault
      chosen.append((index: index, binary: binary))
    }
    return chosen
  }

  /// A boolean parameter, if given.
  private static func flag(_ parameters: [String: Parameter]?, _ name: String, of owner: String) throws(InferenceError)
    -> Bool?
  {
    switch parameters?[name] {
    case nil: return nil
    case .bool(let value): return value
    default: throw .badRequest("\(owner)'s parameter \(name) must be true or false")
    }
  }

  private static func list(_ tensors: [TensorInfo]) -> String {
    tensors.map { "'\($0.name)' \($0.shape)" }.joined(separator: ", ")
  }

  /// Where the JSON decoder stopped and why, without Swift's type names.
  static func describe(_ error: any Error) -> String {
    func path(_ keys: [any CodingKey]) -> String {
      keys.isEmpty
        ? "the body"
        : keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
    }
    guard let error = error as? DecodingError else { return "\(error)" }
    switch error {
    case .keyNotFound(let key, let context): return "\(path(context.codingPath)) has no '\(key.stringValue)'"
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
      return "\(path(context.codingPath)) has the wrong type"
    case .dataCorrupted(let context):
      return context.codingPath.isEmpty
        ? "it is not JSON" : "\(path(context.codingPath)): \(context.debugDescription)"
    @unknown default: return "\(error)"
    }
  }

  /// The JSON object before the binary data.
  struct Header: Decodable {
    struct Input: Decodable {
      let name: String
      let shape: [Int]
      let datatype: String
      let parameters: [String: Parameter]?
      let data: TensorData?

      /// `parameters.binary_data_size`, when given: a byte count.
      func binarySize() throws(InferenceError) -> Int? {
        switch parameters?["binary_data_size"] {
        case nil: return nil
        case .number(let size) where size >= 0 && size <= Double(Int32.max) && size.rounded() == size: return Int(size)
        default: throw .badRequest("the input '\(name)''s parameters.binary_data_size must be a byte count")
        }
      }
    }
    struct Output: Decodable {
      let name: String
      let parameters: [String: Parameter]?
    }
    let id: String?
    let parameters: [String: Parameter]?
    let inputs: [Input]
    let outputs: [Output]?
  }

  /// A parameter's value: the protocol allows a string, a number or a boolean.
  enum Parameter: Decodable, Equatable {
    case bool(Bool)
    case number(Double)
    case string(String)

    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let value = try? container.decode(Bool.self) {
        self = .bool(value)
      } else if let value = try? container.decode(Double.self) {
        self = .number(value)
      } else {
        self = .string(try container.decode(String.self))
      }
    }
  }

  /// A tensor's `data`: numbers, flat in row-major order or nested as the shape is.
  struct TensorData: Decodable {
    var values: [Double] = []

    /// The `userInfo` key of the most values any input takes: `data` with more is refused
    /// as soon as it has read one more.
    static let maximumCount = CodingUserInfoKey(rawValue: "visage.maximumCount")!

    init(from decoder: any Decoder) throws {
      var container = try decoder.unkeyedContainer()
      let most = decoder.userInfo[Self.maximumCount] as? Int ?? Int.max
      try Self.flatten(&container, into: &values, depth: 1, most: most)
    }

    private static func flatten(
      _ container: inout any UnkeyedDecodingContainer, into values: inout [Double], depth: Int, most: Int
    ) throws {
      while !container.isAtEnd {
        if let value = try? container.decode(Double.self) {
          guard values.count < most else {
            throw DecodingError.dataCorruptedError(
              in: container, debugDescription: "data has more values than any input of the model takes (\(most))")
          }
          values.append(value)
          continue
        }
        guard depth < InferenceRequest.maximumDataDepth else {
          throw DecodingError.dataCorruptedError(
            in: container, debugDescription: "data is nested deeper than \(InferenceRequest.maximumDataDepth) arrays")
        }
        var nested = try container.nestedUnkeyedContainer()
        try flatten(&nested, into: &values, depth: depth + 1, most: most)
      }
    }
  }
}

/// An inference response's body: the JSON object, then the bytes of the outputs answered as
/// binary data (when any are), little-endian, in the order of `outputs`.
struct InferenceResponse: Sendable {
  /// The JSON object, UTF-8.
  let header: [UInt8]
  /// The binary outputs' bytes; empty when every output is in the JSON.
  let binary: [UInt8]

  /// Whether any output is binary: the response then carries `Inference-Header-Content-Length`.
  let hasBinary: Bool

  init(model: InferenceModel, request: InferenceRequest, outputs: [Tensor]) {
    var binary: [UInt8] = []
    var described: [InferenceMessage.Output] = []
    for (index, asBinary) in request.outputs {
      let tensor = outputs[index]
      if asBinary {
        binary.reserveCapacity(binary.count + tensor.values.count * 4)
        for value in tensor.values {
          withUnsafeBytes(of: value.bitPattern.littleEndian) { binary.append(contentsOf: $0) }
        }
      }
      // JSON has no NaN or infinity: the encoder writes them null (NumPy reads null as NaN).
      described.append(
        InferenceMessage.Output(
          name: model.outputs[index].name, datatype: InferenceRequest.datatype, shape: tensor.shape.dimensions,
          parameters: asBinary ? InferenceMessage.BinaryData(binaryDataSize: tensor.values.count * 4) : nil,
          data: asBinary ? nil : tensor.values))
    }
    let response = InferenceMessage.InferResponse(
      modelName: model.name, modelVersion: InferenceModel.version, id: request.id, outputs: described)
    header = Array(InferenceMessage.text(response).utf8)
    self.binary = binary
    hasBinary = request.outputs.contains { $0.binary }
  }
}
