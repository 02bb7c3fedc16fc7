import VisageImageIO
import VisageRequests
import VisageService

/// One task copy's tasks: one per distinct request (`TaskRequest.cacheKey`), the least
/// recently used dropped beyond `capacity`, so memory stays bounded whatever options clients
/// send. Used by its pool thread only.
final class TaskCache {
  private let models: ServerModels
  private let capacity: Int
  private var tasks: [(key: String, task: ServedTask)] = []

  init(models: ServerModels, capacity: Int) {
    self.models = models
    self.capacity = max(1, capacity)
  }

  /// The request's task, made on first use.
  func task(for request: TaskRequest) throws -> ServedTask {
    let key = request.cacheKey
    if let i = tasks.firstIndex(where: { $0.key == key }) {
      let entry = tasks.remove(at: i)
      tasks.append(entry)
      return entry.task
    }
    let task = try ServedTask(request, models: models)
    if tasks.count >= capacity { tasks.removeFirst() }
    tasks.append((key, task))
    return task
  }

  /// Decodes and answers one image.
  func respond(to request: TaskRequest, body: ImageBody, limits: ImageLimits) throws -> JSONValue {
    let decoded = try decodeImage(body.bytes, ignoresExif: request.flag("ignore-exif"), limits: limits)
    return try task(for: request).respond(to: decoded, source: body.fileName ?? "image")
  }
}
