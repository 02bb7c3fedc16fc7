import FuzzDriver
import VisageTFLite

/// A `.task` bundle (zip): read the central directory, then every entry it lists, checking
/// sizes, offsets and CRCs. Any error is a clean refusal; only a crash or a sanitizer report
/// is a finding.
public func fuzzTaskBundle(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
  guard let bundle = try? TaskBundle(bytes: bytes) else { return 0 }
  for name in bundle.entryNames { _ = try? bundle.data(named: name) }
  return 0
}

@main enum Harness {
  static func main() { runLibFuzzer(fuzzTaskBundle) }
}
