import Hummingbird
import VisageReports
import VisageRuntime

/// The Open Inference Protocol's JSON bodies, with the fields its REST specification names
/// (kserve/open-inference-protocol, `inference_rest.md`), each built in one place. They are
/// written by `OrderedJSONEncoder`, which keeps the fields in the order declared here and
/// writes an output value JSON cannot hold (NaN, infinity) as null.
enum InferenceMessage {
  /// `GET /v2`: the server's metadata.
  struct Server: Encodable {
    let name: String
    let version: String
    let extensions: [String]
  }

  /// `GET /v2/health/live`.
  struct Live: Encodable {
    let live: Bool
  }

  /// `GET /v2/health/ready`, and `GET /v2/models/{name}/ready` with the model's name.
  struct Ready: Encodable {
    var name: String?
    let ready: Bool
  }

  /// `GET /v2/models/{name}`: the model's metadata.
  struct Model: Encodable {
    let name: String
    let versions: [String]
    let platform: String
    let inputs: [TensorMetadata]
    let outputs: [TensorMetadata]

    init(_ model: InferenceModel) {
      func list(_ tensors: [TensorInfo]) -> [TensorMetadata] {
        tensors.map { TensorMetadata(name: $0.name, datatype: InferenceRequest.datatype, shape: $0.shape.dimensions) }
      }
      (name, versions, platform) = (model.name, [InferenceModel.version], "tflite")
      (inputs, outputs) = (list(model.inputs), list(model.outputs))
    }
  }

  /// A tensor's name, datatype and shape.
  struct TensorMetadata: Encodable {
    let name: String
    let datatype: String
    let shape: [Int]
  }

  /// `POST /v2/models/{name}/infer`'s JSON: the outputs asked for, each with its values or,
  /// for a binary output, the size of its bytes after the JSON.
  struct InferResponse: Encodable {
    let modelName: String
    let modelVersion: String
    let id: String?
    let outputs: [Output]

    enum CodingKeys: String, CodingKey {
      case modelName = "model_name"
      case modelVersion = "model_version"
      case id, outputs
    }
  }

  /// One output of an inference.
  struct Output: Encodable {
    let name: String
    let datatype: String
    let shape: [Int]
    let parameters: BinaryData?
    let data: [Float]?
  }

  /// The binary tensor extension's parameter on an output sent as bytes.
  struct BinaryData: Encodable {
    let binaryDataSize: Int

    enum CodingKeys: String, CodingKey {
      case binaryDataSize = "binary_data_size"
    }
  }

  /// Every failure: `{"error": "…"}`.
  struct Failure: Encodable {
    let error: String
  }

  /// `message` as JSON. Nothing here can fail to encode: strings, numbers and arrays.
  static func json(_ message: some Encodable) -> JSONValue { (try? OrderedJSONEncoder().encode(message)) ?? .null }

  /// `message` as JSON text.
  static func text(_ message: some Encodable) -> String { json(message).description }
}

extension Response {
  /// A JSON body of the Open Inference Protocol, with `status`.
  static func json(encoding message: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
    json(InferenceMessage.json(message), status: status)
  }
}
