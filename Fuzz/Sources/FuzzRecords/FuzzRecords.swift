import FuzzDriver
import Visage
import VisageImageIO

/// One JSON Lines record of `visage --input-format jsonl`: JSON, base64, then the image decoder.
/// Records decode within 4 megapixels, for the same reason as the image harness.
public func fuzzRecords(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let line = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  _ = ImageRecords.parse(line, defaultSource: "fuzz#0", limits: ImageLimits(maximumPixels: 1 << 22))
  return 0
}

@main enum Harness {
  static func main() { runLibFuzzer(fuzzRecords) }
}
