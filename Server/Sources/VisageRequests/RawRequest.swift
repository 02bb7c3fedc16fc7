import Foundation
import VisageHosting
import VisageImageIO

/// A request as raw bytes, for the fuzz harness (Fuzz/Sources/FuzzRequests) and the replay of
/// its findings (Tests/Fixtures/fuzz/requests): the first line is the Content-Type, the second
/// the query string, the rest the body.
public enum RawRequest {
  /// Reads the query as each task's options, the body as a Cloud Vision batch, then the body
  /// in its form, and sniffs and decodes the image within 4 megapixels. Returns what refused
  /// the image, if anything; a crash here is a bug.
  @discardableResult
  public static func exercise(_ bytes: [UInt8]) -> RequestError? {
    let lines = bytes.split(separator: 0x0A, maxSplits: 2, omittingEmptySubsequences: false)
    guard lines.count == 3 else { return nil }
    let contentType = String(decoding: lines[0], as: UTF8.self)
    // Values percent-decoded, as Hummingbird's query parameters are (`TaskRequest` decodes
    // the names).
    let query = String(decoding: lines[1], as: UTF8.self).split(separator: "&").map { pair in
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
      let value = parts.count > 1 ? parts[1] : ""
      return (name: parts[0], value: value.removingPercentEncoding ?? value)
    }
    for kind in FaceTaskKind.allCases {
      _ = try? TaskRequest(kind: kind, query: query)
      _ = try? TaskRequest(kind: kind, query: query, live: true, ignored: ["task"])
    }
    _ = try? CloudVision.items(fromBody: Array(lines[2]))
    do {
      let body = try ImageBody(body: Array(lines[2]), contentType: contentType.isEmpty ? nil : contentType)
      _ = try decodeImage(body.bytes, ignoresExif: false, limits: ImageLimits(maximumPixels: 1 << 22))
      return nil
    } catch {
      return error
    }
  }
}
