import FuzzDriver
import VisageImageIO
import VisageRequests

/// One visage-server request as its bytes reach the route: the input's first line is the
/// Content-Type, its second the query string, the rest the body. The query is read as each
/// task's options; the body in its form (image, multipart, JSON with base64), then sniffed and
/// decoded within 4 megapixels, as the image harness does. Every failure must be a
/// `RequestError` (a 4xx), never a crash.
public func fuzzRequests(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let lines = bytes.split(separator: 0x0A, maxSplits: 2, omittingEmptySubsequences: false)
  guard lines.count == 3 else { return 0 }
  let contentType = String(decoding: lines[0], as: UTF8.self)
  let query = String(decoding: lines[1], as: UTF8.self).split(separator: "&").map { pair in
    let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
    return (name: String(parts[0]), value: parts.count > 1 ? String(parts[1]) : "")
  }
  for kind in FaceTaskKind.allCases {
    _ = try? TaskRequest(kind: kind, query: query)
    _ = try? TaskRequest(kind: kind, query: query, live: true, ignored: ["task"])
  }
  do {
    let body = try ImageBody(body: Array(lines[2]), contentType: contentType.isEmpty ? nil : contentType)
    _ = try decodeImage(body.bytes, ignoresExif: false, limits: ImageLimits(maximumPixels: 1 << 22))
  } catch {}
  return 0
}

@main enum Harness {
  static func main() { runLibFuzzer(fuzzRequests) }
}
