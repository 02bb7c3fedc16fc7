import Foundation
import Prometheus
import VisageRuntime
import VisageTFLite

extension Engine {
  /// Reads, runs and answers one inference request on the next free task copy: the JSON
  /// decoding, the model and the response's encoding all on the copy's thread, as an image is
  /// decoded there, so that neither a 20 MB body nor the model runs on Swift concurrency's few
  /// threads. For an admitted request (`admit()`). Throws `InferenceError` for the client's
  /// mistakes, and `CallerLeft` when the client had gone before the copy took the request.
  func infer(
    _ model: InferenceModel, body: [UInt8], headerLength: String?,
    callerHasLeft: @escaping @Sendable () -> Bool = { false }
  ) async throws -> InferenceResponse {
    let metrics = self.metrics
    return try await pool.run(beyondDepth: true) { cache in
      try metrics.dropIfLeft(callerHasLeft, at: .waiting)
      let start = ContinuousClock.now
      let request = try InferenceRequest(body: body, headerLength: headerLength, model: model)
      let outputs = try cache.interpreter(for: model).run(request.inputs)
      let response = InferenceResponse(model: model, request: request, outputs: outputs)
      metrics.inferenceTime(model.name, ContinuousClock.now - start)
      return response
    }
  }
}

extension TaskCache {
  /// This copy's interpreter for `model`, made on its first request and kept: planning the
  /// memory and packing the filters happen once per copy, not per request.
  func interpreter(for model: InferenceModel) throws -> Interpreter {
    if let interpreter = interpreters[model.name] { return interpreter }
    let interpreter = try Interpreter(model: model.model, implementation: .optimized)
    interpreters[model.name] = interpreter
    return interpreter
  }
}

extension ServerMetrics {
  /// The histogram of `visage_inference_seconds` for `model`.
  private func inferenceTimer(_ model: String) -> DurationHistogram {
    registry.makeDurationHistogram(
      descriptor: .init(
        namespace: "visage", metricName: "inference", unitName: "seconds",
        helpText:
          "Time a task copy spent on one /v2 inference request (its tensors read, the model, its outputs written), by model"
      ),
      labels: [("model", model)],
      buckets: [
        .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5),
      ])
  }

  private func inferenceCounter(_ model: String, status: Int) -> Counter {
    registry.makeCounter(
      descriptor: .init(
        namespace: "visage", metricName: "inference_requests", unitName: "total",
        helpText: "/v2 inference requests answered, by model and status (only models the server has, so names stay few)"
      ),
      labels: [("model", model), ("status", "\(status)")])
  }

  func inferenceTime(_ model: String, _ duration: Duration) { inferenceTimer(model).record(duration) }

  func inferenceAnswered(_ model: String, status: Int) { inferenceCounter(model, status: status).increment() }

  /// Makes every model's series, so that each appears from the start (its 200 count at zero).
  func registerInference(_ models: [String]) {
    for model in models {
      _ = inferenceTimer(model)
      _ = inferenceCounter(model, status: 200)
    }
  }
}
