import Foundation
import Prometheus
import VisageHosting
import VisageRequests

/// What `/metrics` shows, in Prometheus's text format: requests by route and status, their
/// latency, requests in flight and queued, rejections, dropped live frames and model time.
public final class ServerMetrics: Sendable {
  let registry = PrometheusCollectorRegistry()
  private static let latencyBuckets: [Duration] = [
    .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
    .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30),
  ]
  private let inFlightGauge: Gauge
  private let queuedGauge: Gauge
  private let rejections: Counter
  private let droppedFrames: Counter
  private let liveFrames: Counter

  /// Where a request whose client had gone was dropped: before it ran (waiting for its body's
  /// admission or in the queue), or after its image was decoded, before the models.
  enum AbandonedAt: String, CaseIterable { case waiting, decoded }

  public init() {
    inFlightGauge = registry.makeGauge(
      descriptor: .init(
        namespace: "visage", metricName: "requests_in_flight", unitName: "",
        helpText: "Image requests admitted and not yet answered"))
    queuedGauge = registry.makeGauge(
      descriptor: .init(
        namespace: "visage", metricName: "queue_depth", unitName: "", helpText: "Image requests waiting for a task copy"
      ))
    rejections = registry.makeCounter(
      descriptor: .init(
        namespace: "visage", metricName: "rejections", unitName: "total",
        helpText: "Requests answered 503 because the queue was full or the server was draining"))
    droppedFrames = registry.makeCounter(
      descriptor: .init(
        namespace: "visage", metricName: "live_frames_dropped", unitName: "total",
        helpText: "Live-stream frames the flow limiter dropped"))
    liveFrames = registry.makeCounter(
      descriptor: .init(
        namespace: "visage", metricName: "live_frames", unitName: "total", helpText: "Live-stream frames received"))
    // Every metric appears from the start, at zero.
    for kind in FaceTaskKind.allCases { _ = modelTimer(kind) }
    for stage in AbandonedAt.allCases { _ = abandonedCounter(stage) }
  }

  /// Counts one answered request and its latency.
  func request(route: String, status: Int, duration: Duration) {
    registry.makeCounter(
      descriptor: .init(
        namespace: "visage", metricName: "http_requests", unitName: "total",
        helpText: "HTTP requests answered, by route and status"),
      labels: [("route", route), ("status", "\(status)")]
    ).increment()
    registry.makeDurationHistogram(
      descriptor: .init(
        namespace: "visage", metricName: "http_request_duration", unitName: "seconds",
        helpText: "Time from a request's head to its answer, by route"),
      labels: [("route", route)], buckets: Self.latencyBuckets
    ).record(duration)
  }

  func rejected() { rejections.increment() }
  func liveFrameReceived() { liveFrames.increment() }
  func liveFrameDropped() { droppedFrames.increment() }

  private func modelTimer(_ kind: FaceTaskKind) -> DurationHistogram {
    registry.makeDurationHistogram(
      descriptor: .init(
        namespace: "visage", metricName: "model", unitName: "seconds",
        helpText: "Time a task copy spent on one image it answered (decoding and models), by task"),
      labels: [("task", kind.rawValue)], buckets: Self.latencyBuckets)
  }

  func modelTime(_ kind: FaceTaskKind, _ duration: Duration) { modelTimer(kind).record(duration) }

  private func abandonedCounter(_ stage: AbandonedAt) -> Counter {
    registry.makeCounter(
      descriptor: .init(
        namespace: "visage", metricName: "requests_abandoned", unitName: "total",
        helpText: "Image requests dropped because their client had closed the connection, by where (also status 499)"),
      labels: [("at", stage.rawValue)])
  }

  func abandoned(_ stage: AbandonedAt) { abandonedCounter(stage).increment() }

  /// The text `/metrics` answers, with the gauges read now.
  func text(inFlight: Int, queued: Int) -> String {
    inFlightGauge.set(to: Double(inFlight))
    queuedGauge.set(to: Double(queued))
    return registry.emitToString()
  }
}
