import FuzzDriver

@testable import Visage

/// The geometry pipeline metadata proto (`geometry_pipeline_metadata_landmarks.binarypb`):
/// the protobuf reader, MediaPipe's validation, and the pipeline built from what passes.
public func fuzzGeometry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  _ = try? FaceGeometry(metadata: [UInt8](UnsafeBufferPointer(start: data, count: size)))
  return 0
}

@main enum Harness {
  static func main() { runLibFuzzer(fuzzGeometry) }
}
