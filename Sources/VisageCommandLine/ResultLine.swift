import Visage
import VisageReports

/// The command line's JSON values are VisageReports', which keep key order.
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
  let line = try report.json(report.encodingOptions(outputs))
  // A file name that is not UTF-8 is written from its bytes.
  guard frame.rawSource != nil, case .object(var fields) = line, fields.first?.0 == "source" else { return line }
  fields[0].1 = frame.sourceJSON
  return .object(fields)
}
