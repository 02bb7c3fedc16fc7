import Visage
import VisageImageIO

/// One input's result as the command line's `--output json` line and visage-server's
/// response write it (docs/cli.md): the frame's fields (`source`, `width`, `height`,
/// `orientation`, `exifOrientation`, and `timestampMs` in video and live-stream mode), then
/// the result's own fields.
public struct ImageReport<Result: Encodable>: Encodable {
  /// What names the input: a path, a record's source, `stdin#3`.
  public var source: String
  /// The picture the task saw (upright, unless Exif was ignored).
  public var width: Int
  public var height: Int
  /// What was applied to the stored pixels, in `UIImage.Orientation`'s names.
  public var orientation: MPImage.Orientation
  /// The file's Exif orientation, whether applied or not; nil when it has none.
  public var exifOrientation: MPImage.Orientation?
  /// The frame's timestamp in video and live-stream mode; nil in image mode.
  public var timestampMs: Int?
  /// Whether a live stream's flow limiter dropped the frame (then `result` is the empty one).
  public var dropped: Bool
  /// The task's result.
  public var result: Result

  /// Creates a report; `dropped` is written only when true.
  public init(
    source: String, width: Int, height: Int, orientation: MPImage.Orientation, exifOrientation: MPImage.Orientation?,
    timestampMs: Int? = nil, dropped: Bool = false, result: Result
  ) {
    self.source = source
    self.width = width
    self.height = height
    self.orientation = orientation
    self.exifOrientation = exifOrientation
    self.timestampMs = timestampMs
    self.dropped = dropped
    self.result = result
  }

  private enum CodingKeys: String, CodingKey {
    case source, width, height, orientation, exifOrientation, timestampMs, dropped
  }

  /// Writes the frame's fields, then the result's into the same object.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(source, forKey: .source)
    try c.encode(width, forKey: .width)
    try c.encode(height, forKey: .height)
    try c.encode(orientation.rawValue, forKey: .orientation)
    try c.encode(exifOrientation?.exifValue, forKey: .exifOrientation)
    try c.encodeIfPresent(timestampMs, forKey: .timestampMs)
    if dropped { try c.encode(true, forKey: .dropped) }
    try result.encode(to: encoder)
  }

  /// The options a result of this picture is encoded with: its size, and the landmarker's
  /// optional outputs as given.
  public func encodingOptions(_ outputs: LandmarkerOutputs = LandmarkerOutputs()) -> ResultEncodingOptions {
    ResultEncodingOptions(
      imageWidth: width, imageHeight: height, includesFaceBlendshapes: outputs.blendshapes,
      includesFacialTransformationMatrixes: outputs.matrices, includedExtraOutputs: outputs.extras)
  }

  /// The report as one JSON value, its result encoded with `options`.
  public func json(_ options: ResultEncodingOptions) throws -> JSONValue {
    try OrderedJSONEncoder(userInfo: [.visageResultEncoding: options]).encode(self)
  }
}

/// What `ML Kit`-style analysis reports for one picture: its faces.
public struct FacesResult: Encodable {
  /// The faces, as `FaceAnalyzer` returns them.
  public var faces: [Face]
  /// Wraps the analyzer's faces.
  public init(faces: [Face]) { self.faces = faces }
}

/// Which of a landmarker's optional outputs were asked for (`--blendshapes`,
/// `--transformation-matrices`, `--head-pose`, …): each one asked for is written, even when
/// no face has it, and the others are left out. Other results ignore it.
public struct LandmarkerOutputs: Sendable, Equatable {
  /// `faceBlendshapes` (`--blendshapes`).
  public var blendshapes: Bool
  /// `facialTransformationMatrixes` (`--transformation-matrices`).
  public var matrices: Bool
  /// Visage's own outputs.
  public var extras: Set<LandmarkerExtraOutput>

  /// Outputs asked for by hand.
  public init(blendshapes: Bool = false, matrices: Bool = false, extras: Set<LandmarkerExtraOutput> = []) {
    self.blendshapes = blendshapes
    self.matrices = matrices
    self.extras = extras
  }

  /// The options' optional outputs.
  public init(_ options: FaceLandmarkerOptions) {
    var extras: Set<LandmarkerExtraOutput> = []
    if options.outputFaceHeadPoses { extras.insert(.faceHeadPoses) }
    if options.outputFaceMetricLandmarks { extras.insert(.faceMetricLandmarks) }
    if options.outputFaceIrisDistances { extras.insert(.faceIrisDistances) }
    if options.isTrackingEnabled { extras.insert(.faceTrackingIds) }
    if options.outputFaceScores { extras.insert(.faceScores) }
    self.init(
      blendshapes: options.outputFaceBlendshapes, matrices: options.outputFacialTransformationMatrixes, extras: extras)
  }
}
