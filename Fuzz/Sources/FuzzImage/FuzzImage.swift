import FuzzDriver
import Visage
import VisageImageIO

/// PNG and JPEG bytes, recognised by their signature as `VisionImage(encoded:)` does for files.
/// The pixel cap is lowered to 4 megapixels so that inputs declaring huge images are refused
/// quickly instead of filling the run with slow, legitimate decodes.
public func fuzzImage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
  guard let image = try? VisionImage(encoded: bytes, limits: ImageLimits(maximumPixels: 1 << 22)) else { return 0 }
  // A decoded image must be as big as it says.
  precondition(image.width > 0 && image.height > 0)
  return 0
}

@main enum Harness {
  static func main() { runLibFuzzer(fuzzImage) }
}
