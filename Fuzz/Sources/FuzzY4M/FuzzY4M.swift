import Foundation
import FuzzDriver
import Visage
import VisageImageIO

/// The input is written to one scratch file per process, because the reader takes a file or
/// standard input; a RAM-backed directory keeps that cheap.
private let scratchPath: String = {
  let directory = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
  return "\(directory)/visage-fuzz-y4m-\(getpid()).y4m"
}()

/// A YUV4MPEG2 stream: the header line, then up to 8 frames (FRAME lines and planes), within a
/// 1-megapixel cap so that declared sizes do not dominate the run.
public func fuzzY4M(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  guard FileManager.default.createFile(atPath: scratchPath, contents: Data(bytes: data, count: size)) else {
    fatalError("cannot write the scratch file \(scratchPath)")
  }
  defer { unlink(scratchPath) }
  guard let reader = try? Y4MReader(contentsOfFile: scratchPath, limits: ImageLimits(maximumPixels: 1 << 20)) else {
    return 0
  }
  for _ in 0..<8 {
    guard let frame = try? reader.nextFrame() else { break }
    precondition(frame.width == reader.width && frame.height == reader.height)
  }
  return 0
}

@main enum Harness {
  static func main() { runLibFuzzer(fuzzY4M) }
}
