import FuzzDriver
import VisageRequests

/// One visage-server request as its bytes reach the route (`RawRequest`: Content-Type line,
/// query line, body): the query as each task's options, the body in its form (image,
/// multipart, JSON with base64), then sniffed and decoded within 4 megapixels. Every failure
/// must be a `RequestError` (a 4xx), never a crash.
public func fuzzRequests(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  RawRequest.exercise(Array(UnsafeBufferPointer(start: data, count: size)))
  return 0
}

@main enum Harness {
  static func main() { runLibFuzzer(fuzzRequests) }
}
