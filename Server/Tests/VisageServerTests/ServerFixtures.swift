import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import VisageHosting
import VisageRequests

@testable import VisageServer

/// Files and servers the server tests share.
enum ServerFixtures {
  /// The repository's root, found from this file's path (Server/Tests/VisageServerTests/).
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path

  static func bytes(_ path: String) -> [UInt8] {
    [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: root + "/" + path))) ?? Data())
  }

  static let astronaut = bytes("Tests/Fixtures/images/astronaut.png")
  static let panFrames = (0..<12).map { bytes(String(format: "Tests/Fixtures/landmarker/frames/pan/%03d.jpg", $0)) }
  static let crowd = bytes("Tests/Fixtures/crowd/crowd_00.jpg")
  /// A JPEG whose Exif orientation is 6 (turn right to view).
  static let exifSix = bytes("Tests/Fixtures/exif/jpeg_6.jpg")

  static let models = ServerModels(
    bundle: root + "/Weights/face_landmarker.task", fullRange: root + "/Weights/face_detection_full_range.tflite",
    sampleImage: root + "/Weights/bench/astronaut.png")

  /// An engine with `configure`'s changes to a small default configuration.
  static func engine(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> Engine {
    var configuration = ServerConfiguration()
    configuration.threads = 2
    configuration.queueDepth = 4
    configure(&configuration)
    return try Engine(configuration: configuration, models: models)
  }

  /// The JSON object of a response body.
  static func object(_ body: ByteBuffer) throws -> [String: Any] {
    try #require(
      try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any], "\(String(buffer: body))")
  }

  /// The envelope's fields, checked to be the envelope.
  static func envelope(_ response: TestResponse) throws -> (code: Int, status: String, message: String) {
    let error = try #require(try object(response.body)["error"] as? [String: Any])
    let code = try #require(error["code"] as? Int)
    #expect(code == Int(response.status.code))
    #expect(response.headers[.contentType] == "application/json; charset=utf-8")
    return (code, try #require(error["status"] as? String), try #require(error["message"] as? String))
  }

  /// A multipart/form-data body with the file in `field`.
  static func multipart(_ file: [UInt8], field: String = "image", fileName: String = "photo.png", boundary: String)
    -> ByteBuffer
  {
    var buffer = ByteBuffer()
    buffer.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n")
    buffer.writeString(
      "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field)\"; filename=\"\(fileName)\"\r\nContent-Type: image/png\r\n\r\n"
    )
    buffer.writeBytes(file)
    buffer.writeString("\r\n--\(boundary)--\r\n")
    return buffer
  }

  /// Peak resident memory of this process, in bytes (Linux: VmHWM).
  static func peakResidentBytes() -> Int { ProcessMemory.residentBytes(peak: true) ?? 0 }
}

/// Keeps what a server logs at `.info` and above, for tests of what it logs.
final class LogRecorder: @unchecked Sendable {
  // @unchecked: `kept` is guarded by `lock`.
  private let lock = NSLock()
  private var kept: [(level: Logger.Level, message: String)] = []

  /// Each message kept so far, with its metadata.
  var entries: [(level: Logger.Level, message: String)] { lock.withLock { kept } }

  /// A logger whose messages are kept here.
  var logger: Logger { Logger(label: "visage-server") { _ in Handler(recorder: self) } }

  struct Handler: LogHandler {
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      let message = "\(event.message) \(event.metadata ?? [:])"
      recorder.lock.withLock { recorder.kept.append((event.level, message)) }
    }
  }
}
