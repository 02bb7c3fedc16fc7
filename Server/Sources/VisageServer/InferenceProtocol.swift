import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import VisageReports
import VisageRuntime

/// The Open Inference Protocol's REST routes (KServe v2, as Triton serves it), with its binary
/// tensor data extension: server and model metadata, health, and inference on the models of
/// `InferenceModels` (docs/server.md, "The Open Inference Protocol").
struct InferenceRoutes {
  let engine: Engine

  /// `GET /v2`'s `name`.
  static let serverName = "visage-server"
  /// `GET /v2`'s `version`: Visage has no releases yet.
  static let serverVersion = "unreleased"
  /// The protocol extensions served, as `GET /v2` names them.
  static let extensions = ["binary_tensor_data"]
  /// The header that gives the JSON part's length when binary data follows it.
  static let headerLength = HTTPField.Name("Inference-Header-Content-Length")!

  func add(to router: Router<VisageRequestContext>) {
    // Every failure in the protocol's envelope; the models' routes behind the API keys too,
    // the health and server routes open, as /healthz and /readyz are.
    let open = router.group().add(middleware: InferenceErrorMiddleware())
    var models = router.group().add(middleware: InferenceErrorMiddleware())
    if !engine.configuration.apiKeys.isEmpty {
      models = models.add(middleware: APIKeyMiddleware(keys: engine.configuration.apiKeys.map { Array($0.utf8) }))
    }
    open.get("/v2") { _, _ in
      Response.json(
        encoding: InferenceMessage.Server(
          name: Self.serverName, version: Self.serverVersion, extensions: Self.extensions))
    }
    open.get("/v2/health/live") { _, _ in Response.json(encoding: InferenceMessage.Live(live: true)) }
    open.get("/v2/health/ready") { [engine] _, _ in
      let ready = !engine.isDraining
      return Response.json(encoding: InferenceMessage.Ready(ready: ready), status: ready ? .ok : .serviceUnavailable)
    }
    for path in ["/v2", "/v2/health/live", "/v2/health/ready"] {
      refuseOtherMethods(open, path, allowed: .get, error: InferenceError.init)
    }

    for prefix in ["/v2/models/:name", "/v2/models/:name/versions/:version"] {
      models.get(RouterPath(prefix)) { _, context in
        Response.json(encoding: InferenceMessage.Model(try model(context)))
      }
      models.get(RouterPath(prefix + "/ready")) { [engine] _, context in
        let model = try model(context)
        let ready = !engine.isDraining
        return Response.json(
          encoding: InferenceMessage.Ready(name: model.name, ready: ready), status: ready ? .ok : .serviceUnavailable)
      }
      models.post(RouterPath(prefix + "/infer")) { request, context in
        try await infer(try model(context), request, context)
      }
      refuseOtherMethods(models, prefix, allowed: .get, error: InferenceError.init)
      refuseOtherMethods(models, prefix + "/ready", allowed: .get, error: InferenceError.init)
      refuseOtherMethods(models, prefix + "/infer", allowed: .post, error: InferenceError.init)
    }
  }

  /// The model the path names, in the one version every model has; 404 otherwise.
  private func model(_ context: VisageRequestContext) throws(InferenceError) -> InferenceModel {
    let name = context.parameters.get("name") ?? ""
    guard let model = engine.inference.byName[name] else {
      throw InferenceError(
        .notFound, "no model named '\(name)'; the models are \(engine.inference.names.joined(separator: ", "))")
    }
    if let version = context.parameters.get("version"), version != InferenceModel.version {
      throw InferenceError(
        .notFound, "the model \(name) has no version '\(version)'; its one version is \(InferenceModel.version)")
    }
    return model
  }

  /// One inference: the body within `--max-body-bytes` and the body timeout, admission as
  /// every image request has (a copy or a queue place, else 503), then the work on a copy.
  /// Each answer is counted under the model's name.
  private func infer(_ model: InferenceModel, _ request: Request, _ context: VisageRequestContext) async throws
    -> Response
  {
    let metrics = engine.metrics
    do {
      let response = try await admitted(model, request, context)
      metrics.inferenceAnswered(model.name, status: 200)
      return response
    } catch let error as InferenceError {
      metrics.inferenceAnswered(model.name, status: error.status.code)
      throw error
    } catch let error as APIError {
      metrics.inferenceAnswered(model.name, status: error.status.code)
      throw error
    } catch {
      metrics.inferenceAnswered(model.name, status: 500)
      throw error
    }
  }

  private func admitted(_ model: InferenceModel, _ request: Request, _ context: VisageRequestContext) async throws
    -> Response
  {
    let answer = try await Routes(engine: engine).admitting(request, context) { bytes, hasLeft in
      try await engine.infer(
        model, body: bytes, headerLength: request.headers[Self.headerLength], callerHasLeft: hasLeft)
    }
    guard answer.hasBinary else {
      return Response(
        status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(bytes: answer.header)))
    }
    var body = ByteBuffer()
    body.reserveCapacity(answer.header.count + answer.binary.count)
    body.writeBytes(answer.header)
    body.writeBytes(answer.binary)
    return Response(
      status: .ok,
      headers: [.contentType: "application/octet-stream", Self.headerLength: "\(answer.header.count)"],
      body: .init(byteBuffer: body))
  }
}
