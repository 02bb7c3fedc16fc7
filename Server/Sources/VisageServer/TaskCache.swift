import Visage
import VisageImageIO
import VisageReports
import VisageRequests
import VisageRuntime

/// One task copy's tasks: one per distinct request (`TaskRequest.cacheKey`, or Cloud Vision's
/// `maxResults`), the least recently used dropped beyond `capacity`, so memory stays bounded
/// whatever options clients send. Used by its pool thread only.
final class TaskCache {
  private let models: ServerModels
  private let capacity: Int
  private var tasks: [(key: String, task: AnyObject)] = []
  /// The `/v2` models' interpreters by model name, each made on its first request (one per
  /// model, not bounded by `capacity`: their number is fixed at start).
  var interpreters: [String: Interpreter] = [:]

  init(models: ServerModels, capacity: Int) {
    self.models = models
    self.capacity = max(1, capacity)
  }

  /// The task kept under `key`, made by `make` on first use.
  private func cached<Task: AnyObject>(_ key: String, make: () throws -> Task) throws -> Task {
    if let i = tasks.firstIndex(where: { $0.key == key }), let task = tasks[i].task as? Task {
      tasks.append(tasks.remove(at: i))
      return task
    }
    let task = try make()
    if tasks.count >= capacity { tasks.removeFirst() }
    tasks.append((key, task))
    return task
  }

  /// The request's task, made on first use.
  func task(for request: TaskRequest) throws -> ServedTask {
    try cached(request.cacheKey) { try ServedTask(request, models: models) }
  }

  /// Decodes and answers one image; `beforeModels` runs between the two (and may throw).
  func respond(
    to request: TaskRequest, body: ImageBody, limits: ImageLimits, beforeModels: () throws -> Void = {}
  ) throws -> JSONValue {
    let decoded = try decodeImage(body.bytes, ignoresExif: request.settings.flag("ignore-exif"), limits: limits)
    try beforeModels()
    return try task(for: request).respond(to: decoded, source: body.fileName ?? "image")
  }

  /// One Cloud Vision image's response: `visage analyze --performance accurate`'s faces, up
  /// to `maxResults`, or its `error` when the image does not decode or the analysis refuses it.
  /// `beforeModels` runs once the image is decoded (and may throw).
  func annotate(_ bytes: [UInt8], maxResults: Int, limits: ImageLimits, beforeModels: () throws -> Void) throws
    -> CloudVision.ImageResponse
  {
    let decoded: DecodedImage
    do { decoded = try decodeImage(bytes, ignoresExif: false, limits: limits) } catch {
      return CloudVision.Status.invalidArgument("Bad image data: \(error.message)").response
    }
    try beforeModels()
    // Every face the search finds, however small, as Cloud Vision answers (ML Kit's
    // tenth-of-the-picture `minFaceSize` is off); at least Cloud Vision's default of 10 are
    // looked at, and the response keeps the first `maxResults`.
    let faceCount = max(maxResults, CloudVision.defaultMaxResults)
    let analyzer = try cached("images:annotate \(faceCount)") {
      let request = try TaskRequest(
        kind: .analyze,
        query: [
          ("performance", "accurate"), ("landmarks", "true"), ("classification", "true"),
          ("max-faces", "\(faceCount)"), ("min-face-size", "0"),
        ])
      return try FaceAnalyzer(options: request.analyzerOptions(models: models, video: false))
    }
    do {
      let faces = try analyzer.analyzeInDetail(image: decoded.image)
      return CloudVision.ImageResponse(
        faces, maxResults: maxResults, width: decoded.image.width, height: decoded.image.height)
    } catch {
      // The library refused this image (a search over its bounds, say): the image's fault.
      return CloudVision.Status.invalidArgument("\(error)").response
    }
  }
}
