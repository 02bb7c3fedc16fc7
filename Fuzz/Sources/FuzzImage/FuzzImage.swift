import FuzzDriver
import Visage
import VisageImageIO

/// PNG and JPEG bytes, recognised by their signature as `MPImage(encoded:)` does for files,
/// with their Exif orientation; and any bytes through stb_image, as MediaPipe's Python reads.
/// The pixel cap is lowered to 4 megapixels so that inputs declaring huge images are refused
/// quickly instead of filling the run with slow, legitimate decodes.
public func fuzzImage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
  // The Exif reader walks the container and the TIFF block whether or not the pixels decode,
  // and most fuzzed files do not decode; the input as a bare TIFF block too.
  _ = ExifOrientation.read(fromFile: bytes)
  _ = ExifOrientation.read(fromTIFF: bytes[...])
  // stb_image (MediaPipe's Python decoder) reads every format it knows from the same bytes.
  if let decoded = try? STBImage(mediaPipeEncoded: bytes, limits: ImageLimits(maximumPixels: 1 << 22)) {
    precondition(decoded.pixels.count == decoded.width * decoded.height * decoded.channels)
  }
  guard let image = try? MPImage(encoded: bytes, limits: ImageLimits(maximumPixels: 1 << 22)) else { return 0 }
  // A decoded image must be as big as it says.
  precondition(image.width > 0 && image.height > 0)
  // Decoding never leaves a mirrored orientation, and the upright view keeps every pixel.
  precondition((try? image.orientation.rotationDegrees()) != nil)
  precondition(image.applyingOrientation().pixels.count == image.pixels.count)
  return 0
}

@main enum Harness {
  static func main() { runLibFuzzer(fuzzImage) }
}
