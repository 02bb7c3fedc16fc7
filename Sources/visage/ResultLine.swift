import Visage
import VisageService

/// The command line's JSON values are VisageService's, which keep key order.
typealias JSON = JSONValue

/// One input's `--output json` line (docs/cli.md): the frame's fields, then the result's own,
/// encoded by the library's `Encodable` conformances as visage-server's responses are.
/// `outputs` says which of a landmarker's optional outputs were asked for.
func resultLine(
  _ result: some Encodable, frame: Frame, image: MPImage, timestampMs: Int?, dropped: Bool = false,
  outputs: LandmarkerOutputs = LandmarkerOutputs()
) throws -> JSON {
  let report = ImageReport(
    source: frame.source, width: image.width, height: image.height, orientation: frame.orientation,
    exifOrientation: frame.exifOrientation, timestampMs: timestampMs, dropped: dropped, result: result)
  return try report.json(report.encodingOptions(outputs))
}
