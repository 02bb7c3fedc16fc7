import Foundation
import HTTPTypes
import Hummingbird
import Visage
import VisageReports

/// The page at `/` (docs/server.md, "The page"): static HTML, CSS and JS read once at start
/// and held in memory, plus `mesh-connections.json`, the library's drawing tables, so that the
/// page draws the mesh from the same edges `FaceLandmarksConnections` gives Swift callers.
struct PageFiles: Sendable {
  /// One file: its body and content type.
  struct File: Sendable {
    let bytes: [UInt8]
    let contentType: String
  }

  /// Files by the path they are served at ("/" for the index).
  let files: [String: File]
  /// Where the files came from, for the start-up log; nil when no page was found.
  let directory: String?

  /// The files the page is made of, and their types.
  static let names = ["index.html": "text/html", "app.js": "text/javascript", "style.css": "text/css"]

  /// Reads the page from `directory`, or from the copy built beside the binary (SwiftPM's
  /// resource bundle), or from the source tree it was built from. None found: no page, and
  /// `/` answers 404 saying why; the API is unaffected.
  static func load(directory: String?) throws -> PageFiles {
    let found =
      directory.map { [$0] } ?? candidates().filter { FileManager.default.fileExists(atPath: $0 + "/index.html") }
    var files = [
      "/mesh-connections.json": File(bytes: Array(meshConnections.description.utf8), contentType: "application/json")
    ]
    guard let folder = found.first else { return PageFiles(files: files, directory: nil) }
    for (name, type) in names {
      let path = folder + "/" + name
      guard let data = FileManager.default.contents(atPath: path) else {
        throw ValidationFailure("the page's \(name) cannot be read in \(folder)")
      }
      files[name == "index.html" ? "/" : "/" + name] = File(bytes: Array(data), contentType: type + "; charset=utf-8")
    }
    return PageFiles(files: files, directory: folder)
  }

  /// SwiftPM's resource bundle beside the executable (where `swift build` puts it, and where a
  /// deployment copies it), then the package's source folder.
  private static func candidates() -> [String] {
    let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
      .deletingLastPathComponent()
    return [
      Bundle.main.bundleURL.appendingPathComponent("VisageServer_VisageServer.resources/Page").path,
      executable.appendingPathComponent("VisageServer_VisageServer.resources/Page").path,
      URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Page").path,
    ]
  }

  /// The mesh's edge groups as `{"tesselation": [[a, b], …], …}`; "left" is the subject's.
  static var meshConnections: JSONValue {
    let groups: [(String, [Connection])] = [
      ("tesselation", FaceLandmarksConnections.tesselation), ("faceOval", FaceLandmarksConnections.faceOval),
      ("leftEye", FaceLandmarksConnections.leftEye), ("rightEye", FaceLandmarksConnections.rightEye),
      ("leftEyebrow", FaceLandmarksConnections.leftEyebrow), ("rightEyebrow", FaceLandmarksConnections.rightEyebrow),
      ("leftIris", FaceLandmarksConnections.leftIris), ("rightIris", FaceLandmarksConnections.rightIris),
      ("lips", FaceLandmarksConnections.lips), ("nose", FaceLandmarksConnections.nose),
    ]
    return .object(groups.map { name, edges in (name, .array(edges.map { .array([.int($0.start), .int($0.end)]) })) })
  }

  /// Adds a GET route for every file; `/` says why when the page was not found.
  func add<Context: RequestContext>(to router: Router<Context>) {
    for (path, file) in files {
      router.get(RouterPath(path)) { _, _ in
        Response(
          status: .ok, headers: [.contentType: file.contentType, .cacheControl: "no-cache"],
          body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
      }
    }
    if files["/"] == nil {
      router.get("/") { _, _ -> Response in
        throw APIError(
          .notFound,
          "the page's files were not found: copy VisageServer_VisageServer.resources beside the binary, or start with --page-dir (docs/server.md)"
        )
      }
    }
  }
}

/// A configuration problem found at start (the server does not start).
struct ValidationFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
