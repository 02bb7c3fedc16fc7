import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import VisageRuntime
import VisageTFLite

@testable import VisageServer

/// The Open Inference Protocol's routes (`/v2`): metadata, health, inference with JSON and
/// binary tensors, and every refusal in the protocol's `{"error": "…"}`.
@Suite(.timeLimit(.minutes(5))) struct InferenceProtocolTests {
  typealias F = ServerFixtures

  /// A deterministic input for `shape`: values in [-1, 1) that are not round in binary.
  static func input(_ shape: Shape, seed: Int = 0) -> [Float] {
    (0..<shape.count).map { Float(($0 * 37 + seed * 11) % 251) / 125.5 - 1 }
  }

  /// What the runtime itself gives for `inputs` on the model the server serves as `name`.
  static func expected(_ engine: Engine, _ name: String, _ inputs: [[Float]]) throws -> [Tensor] {
    let model = try #require(engine.inference.byName[name])
    let tensors = try zip(model.inputs, inputs).map { try Tensor(shape: $0.shape, values: $1) }
    return try Interpreter(model: model.model, implementation: .optimized).run(tensors)
  }

  static func json(_ value: Any) throws -> ByteBuffer {
    ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: value))
  }

  static func floats(_ any: Any?) throws -> [Float] {
    try #require(any as? [NSNumber]).map(\.floatValue)
  }

  /// The protocol's error: the status, the envelope, its message.
  static func error(_ response: TestResponse, _ status: HTTPResponse.Status) throws -> String {
    #expect(response.status == status, "\(String(buffer: response.body))")
    #expect(response.headers[.contentType] == "application/json; charset=utf-8")
    let object = try F.object(response.body)
    #expect(object.count == 1)
    return try #require(object["error"] as? String)
  }

  @Test func serverAndModelMetadata() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.router) { client in
      let server = try F.object(try await client.execute(uri: "/v2", method: .get).body)
      #expect(server["name"] as? String == "visage-server")
      #expect((server["extensions"] as? [String])?.contains("binary_tensor_data") == true)
      for path in ["/v2/health/live", "/v2/health/ready"] {
        let response = try await client.execute(uri: path, method: .get)
        #expect(response.status == .ok)
      }
      #expect(
        try F.object(try await client.execute(uri: "/v2/health/live", method: .get).body)["live"] as? Bool == true)
      let shapes: [String: ([Int], Int)] = [
        "face_detector": ([1, 128, 128, 3], 2), "face_landmarks_detector": ([1, 256, 256, 3], 3),
        "face_blendshapes": ([1, 146, 2], 1), "face_detection_full_range": ([1, 192, 192, 3], 2),
      ]
      for (name, (shape, outputs)) in shapes {
        for path in ["/v2/models/\(name)", "/v2/models/\(name)/versions/1"] {
          let response = try await client.execute(uri: path, method: .get)
          #expect(response.status == .ok)
          let metadata = try F.object(response.body)
          #expect(metadata["name"] as? String == name)
          #expect(metadata["platform"] as? String == "tflite")
          #expect(metadata["versions"] as? [String] == ["1"])
          let inputs = try #require(metadata["inputs"] as? [[String: Any]])
          #expect(inputs.first?["shape"] as? [Int] == shape && inputs.first?["datatype"] as? String == "FP32")
          #expect((metadata["outputs"] as? [Any])?.count == outputs, "\(name)")
        }
        let ready = try F.object(try await client.execute(uri: "/v2/models/\(name)/ready", method: .get).body)
        #expect(ready["name"] as? String == name && ready["ready"] as? Bool == true)
      }
      #expect(
        try Self.error(try await client.execute(uri: "/v2/models/nope", method: .get), .notFound).contains("nope"))
      _ = try Self.error(try await client.execute(uri: "/v2/models/face_detector/versions/2", method: .get), .notFound)
      _ = try Self.error(try await client.execute(uri: "/v2/models/nope/ready", method: .get), .notFound)
      _ = try Self.error(try await client.execute(uri: "/v2/models/nope/infer", method: .post), .notFound)
      let refused = try await client.execute(uri: "/v2/models/face_detector", method: .post)
      _ = try Self.error(refused, .methodNotAllowed)
      #expect(refused.headers[.allow] == "GET")
      let get = try await client.execute(uri: "/v2/models/face_detector/infer", method: .get)
      _ = try Self.error(get, .methodNotAllowed)
      #expect(get.headers[.allow] == "POST")
    }
    engine.shutdown()
  }

  /// JSON tensors, flat and nested, give what the runtime gives, float for float; a subset
  /// of the outputs is answered in the order asked.
  @Test func jsonInferenceIsTheRuntimesAnswer() async throws {
    let engine = try F.engine()
    let shape: Shape = [1, 128, 128, 3]
    let values = Self.input(shape)
    let expected = try Self.expected(engine, "face_detector", [values])
    let model = try #require(engine.inference.byName["face_detector"])
    let nested = (0..<128).map { y in
      (0..<128).map { x in (0..<3).map { c in values[(y * 128 + x) * 3 + c] } }
    }
    try await makeApplication(engine: engine).test(.router) { client in
      for data in [values as Any, [nested] as Any] {
        let body: [String: Any] = [
          "id": "r1",
          "inputs": [["name": model.inputs[0].name, "shape": [1, 128, 128, 3], "datatype": "FP32", "data": data]],
        ]
        let response = try await client.execute(
          uri: "/v2/models/face_detector/infer", method: .post, body: try Self.json(body))
        #expect(response.status == .ok, "\(String(buffer: response.body).prefix(300))")
        #expect(response.headers[.contentType] == "application/json; charset=utf-8")
        let object = try F.object(response.body)
        #expect(object["id"] as? String == "r1" && object["model_name"] as? String == "face_detector")
        let outputs = try #require(object["outputs"] as? [[String: Any]])
        #expect(outputs.count == 2)
        for (k, output) in outputs.enumerated() {
          #expect(output["name"] as? String == model.outputs[k].name)
          #expect(output["shape"] as? [Int] == expected[k].shape.dimensions)
          #expect(try Self.floats(output["data"]) == expected[k].values)
        }
      }
      // The second output only.
      let body: [String: Any] = [
        "inputs": [["name": model.inputs[0].name, "shape": [1, 128, 128, 3], "datatype": "FP32", "data": values]],
        "outputs": [["name": model.outputs[1].name]],
      ]
      let response = try await client.execute(
        uri: "/v2/models/face_detector/versions/1/infer", method: .post, body: try Self.json(body))
      let outputs = try #require(try F.object(response.body)["outputs"] as? [[String: Any]])
      #expect(outputs.count == 1 && outputs[0]["name"] as? String == model.outputs[1].name)
      #expect(try Self.floats(outputs[0]["data"]) == expected[1].values)
    }
    engine.shutdown()
  }

  /// The binary tensor data extension both ways: inputs after the JSON, outputs after it,
  /// one output binary and one in the JSON when the request says so.
  @Test func binaryInferenceIsTheRuntimesAnswer() async throws {
    let engine = try F.engine()
    let model = try #require(engine.inference.byName["face_blendshapes"])
    let values = Self.input(model.inputs[0].shape, seed: 3).map { $0 * 128 + 128 }
    let expected = try Self.expected(engine, "face_blendshapes", [values])
    let bytes = values.flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } }
    try await makeApplication(engine: engine).test(.router) { client in
      let header: [String: Any] = [
        "inputs": [
          [
            "name": model.inputs[0].name, "shape": [1, 146, 2], "datatype": "FP32",
            "parameters": ["binary_data_size": bytes.count],
          ]
        ],
        "parameters": ["binary_data_output": true],
      ]
      let json = try JSONSerialization.data(withJSONObject: header)
      let response = try await client.execute(
        uri: "/v2/models/face_blendshapes/infer", method: .post,
        headers: [InferenceRoutes.headerLength: "\(json.count)", .contentType: "application/octet-stream"],
        body: ByteBuffer(bytes: Array(json) + bytes))
      #expect(response.status == .ok, "\(String(buffer: response.body).prefix(300))")
      #expect(response.headers[.contentType] == "application/octet-stream")
      let length = try #require(response.headers[InferenceRoutes.headerLength].flatMap { Int($0) })
      let body = Array(buffer: response.body)
      let object = try #require(try JSONSerialization.jsonObject(with: Data(body[..<length])) as? [String: Any])
      let output = try #require((object["outputs"] as? [[String: Any]])?.first)
      #expect(output["data"] == nil)
      let size = try #require((output["parameters"] as? [String: Any])?["binary_data_size"] as? Int)
      #expect(size == body.count - length && size == expected[0].values.count * 4)
      let floats = stride(from: length, to: body.count, by: 4).map { i in
        Float(
          bitPattern: UInt32(body[i]) | UInt32(body[i + 1]) << 8 | UInt32(body[i + 2]) << 16 | UInt32(body[i + 3]) << 24
        )
      }
      #expect(floats == expected[0].values)

      // binary_data false on the output wins over the request's binary_data_output.
      var jsonOut = header
      jsonOut["outputs"] = [["name": model.outputs[0].name, "parameters": ["binary_data": false]]]
      let json2 = try JSONSerialization.data(withJSONObject: jsonOut)
      let answer = try await client.execute(
        uri: "/v2/models/face_blendshapes/infer", method: .post,
        headers: [InferenceRoutes.headerLength: "\(json2.count)"], body: ByteBuffer(bytes: Array(json2) + bytes))
      #expect(answer.headers[.contentType] == "application/json; charset=utf-8")
      let data = try #require((try F.object(answer.body)["outputs"] as? [[String: Any]])?.first?["data"])
      #expect(try Self.floats(data) == expected[0].values)
    }
    engine.shutdown()
  }

  /// Every way a request can be wrong is a 400 (or 404) that says what, never a crash, a hang
  /// or an allocation sized by the request.
  @Test func malformedRequestsAreRefused() async throws {
    let engine = try F.engine()
    let model = try #require(engine.inference.byName["face_blendshapes"])
    let name = model.inputs[0].name
    let values = Self.input(model.inputs[0].shape)
    func input(_ fields: [String: Any]) -> [String: Any] {
      ["name": name, "shape": [1, 146, 2], "datatype": "FP32", "data": values].merging(fields) { $1 }
    }
    let cases: [(String, Any, [UInt8], String?)] = [
      ("wrong shape", ["inputs": [input(["shape": [1, 2, 146]])]], [], nil),
      ("giant shape", ["inputs": [input(["shape": [Int.max, Int.max, 4]])]], [], nil),
      ("negative shape", ["inputs": [input(["shape": [-1, 146, 2]])]], [], nil),
      ("too few values", ["inputs": [input(["data": [1, 2, 3]])]], [], nil),
      ("too many values", ["inputs": [input(["data": values + [0]])]], [], nil),
      ("unknown input", ["inputs": [input(["name": "nope"])]], [], nil),
      ("twice", ["inputs": [input([:]), input([:])]], [], nil),
      ("missing input", ["inputs": [] as [Any]], [], nil),
      ("no inputs", ["id": "x"], [], nil),
      ("INT32", ["inputs": [input(["datatype": "INT32"])]], [], nil),
      ("strings", ["inputs": [input(["data": ["a"]])]], [], nil),
      ("beyond FP32", ["inputs": [input(["data": [1e300] + values.dropFirst().map(Double.init)])]], [], nil),
      ("unknown output", ["inputs": [input([:])], "outputs": [["name": "nope"]]], [], nil),
      ("flag not bool", ["inputs": [input([:])], "parameters": ["binary_data_output": "yes"]], [], nil),
      ("binary size no header", ["inputs": [input(["parameters": ["binary_data_size": 1168]])]], [], nil),
      (
        "size mismatch", ["inputs": [input(["data": NSNull(), "parameters": ["binary_data_size": 8]])]],
        [0, 0, 0, 0, 0, 0, 0, 0], "H"
      ),
      ("bytes short", ["inputs": [input(["parameters": ["binary_data_size": 1168]])]], [0, 0, 0, 0], "H"),
      ("bytes left over", ["inputs": [input([:])]], [1, 2, 3], "H"),
      ("header beyond body", ["inputs": [input([:])]], [], "99999999"),
      ("header negative", ["inputs": [input([:])]], [], "-1"),
      ("header not a number", ["inputs": [input([:])]], [], "ten"),
    ]
    // Encoded before the closure, which may capture only what is Sendable.
    let requests = try cases.map { label, object, binary, header in
      (label, [UInt8](try JSONSerialization.data(withJSONObject: object)), binary, header)
    }
    try await makeApplication(engine: engine).test(.router) { client in
      for (label, json, binary, header) in requests {
        var headers: HTTPFields = [:]
        if let header { headers[InferenceRoutes.headerLength] = header == "H" ? "\(json.count)" : header }
        let response = try await client.execute(
          uri: "/v2/models/face_blendshapes/infer", method: .post, headers: headers,
          body: ByteBuffer(bytes: json + binary))
        let message = try Self.error(response, .badRequest)
        #expect(!message.isEmpty, "\(label)")
      }
      for body in ["", "[1]", "{", "not json", String(repeating: "[", count: 100_000)] {
        _ = try Self.error(
          try await client.execute(
            uri: "/v2/models/face_blendshapes/infer", method: .post, body: ByteBuffer(string: body)), .badRequest)
      }
      let deep =
        "{\"inputs\": [{\"name\": \"\(name)\", \"shape\": [1, 146, 2], \"datatype\": \"FP32\", \"data\": "
        + String(repeating: "[", count: 40) + "1" + String(repeating: "]", count: 40) + "}]}"
      _ = try Self.error(
        try await client.execute(
          uri: "/v2/models/face_blendshapes/infer", method: .post, body: ByteBuffer(string: deep)),
        .badRequest)
    }
    engine.shutdown()
  }

  /// `/metrics` counts inference requests by model and status, and times the model's.
  @Test func metricsByModel() async throws {
    let engine = try F.engine()
    let model = try #require(engine.inference.byName["face_blendshapes"])
    let body = try Self.json([
      "inputs": [
        [
          "name": model.inputs[0].name, "shape": [1, 146, 2], "datatype": "FP32",
          "data": Self.input(model.inputs[0].shape),
        ]
      ]
    ])
    try await makeApplication(engine: engine).test(.router) { client in
      for _ in 0..<2 {
        let response = try await client.execute(uri: "/v2/models/face_blendshapes/infer", method: .post, body: body)
        #expect(response.status == .ok)
      }
      _ = try await client.execute(
        uri: "/v2/models/face_blendshapes/infer", method: .post, body: ByteBuffer(string: "{"))
      let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
      #expect(text.contains(#"visage_inference_requests_total{model="face_blendshapes",status="200"} 2"#))
      #expect(text.contains(#"visage_inference_requests_total{model="face_blendshapes",status="400"} 1"#))
      #expect(text.contains(#"visage_inference_seconds_count{model="face_blendshapes"} 2"#))
      #expect(text.contains(#"visage_inference_requests_total{model="face_detector",status="200"} 0"#))
    }
    engine.shutdown()
  }

  /// With keys set, the model routes need one (401 in the protocol's envelope); `/v2` and
  /// its health routes do not, as `/healthz` does not.
  @Test func modelRoutesNeedAKeyWhenKeysAreSet() async throws {
    let engine = try F.engine { $0.apiKeys = ["secret"] }
    try await makeApplication(engine: engine).test(.router) { client in
      let refused = try await client.execute(uri: "/v2/models/face_detector", method: .get)
      _ = try Self.error(refused, .unauthorized)
      #expect(refused.headers[.wwwAuthenticate] == "Bearer")
      _ = try Self.error(try await client.execute(uri: "/v2/models/face_detector/infer", method: .post), .unauthorized)
      let allowed = try await client.execute(
        uri: "/v2/models/face_detector", method: .get, headers: [.xAPIKey: "secret"])
      #expect(allowed.status == .ok)
      for path in ["/v2", "/v2/health/live", "/v2/health/ready"] {
        #expect(try await client.execute(uri: path, method: .get).status == .ok)
      }
    }
    engine.shutdown()
  }

  /// `--model NAME=PATH` serves another file; one that cannot be read stops the server.
  @Test func modelsGivenAtStart() async throws {
    let engine = try F.engine {
      $0.inferenceModels = [("short_range", F.root + "/Weights/face_landmarker.task:face_detector.tflite")]
    }
    try await makeApplication(engine: engine).test(.router) { client in
      let metadata = try F.object(try await client.execute(uri: "/v2/models/short_range", method: .get).body)
      #expect(metadata["name"] as? String == "short_range")
    }
    engine.shutdown()
    #expect(throws: InferenceSetupError.self) {
      try F.engine { $0.inferenceModels = [("broken", F.root + "/Weights/README.md")] }
    }
    #expect(throws: InferenceSetupError.self) {
      try F.engine { $0.inferenceModels = [("face_detector", F.root + "/Weights/face_detection_full_range.tflite")] }
    }
    #expect(InferenceModels.isValidName("my-model_2.1") && !InferenceModels.isValidName("a/b"))
    #expect(!InferenceModels.isValidName("") && !InferenceModels.isValidName(".."))
  }
}
