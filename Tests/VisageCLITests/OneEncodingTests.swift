import Foundation
import Testing
import Visage
import VisageImageIO
import VisageReports
import VisageTestSupport

/// The command line's lines come from the library results' one encoding (`ImageReport` over
/// the types' `Encodable` conformances), which visage-server's responses use too: a line is
/// byte for byte what that encoding gives for the same task's result in this process.
@Suite(.timeLimit(.minutes(minutesAllowed(2)))) struct OneEncodingTests {
  static let path = "Tests/Fixtures/images/astronaut.png"

  static func expected(_ result: some Encodable, outputs: LandmarkerOutputs = LandmarkerOutputs()) throws -> String {
    let decoded = try DecodedImage(contentsOfFile: Fixtures.repositoryRoot + "/" + path)
    let report = ImageReport(
      source: path, width: decoded.image.width, height: decoded.image.height, orientation: decoded.storedOrientation,
      exifOrientation: decoded.exifOrientation, result: result)
    return try report.json(
      report.encodingOptions(outputs)
    ).description
  }

  static func line(_ arguments: [String]) throws -> String {
    let run = try CLI.run(arguments + [path, "--output", "json"])
    #expect(run.status == 0, "\(run.stderr)")
    return run.stdout.trimmingCharacters(in: .newlines)
  }

  static let image = { try! MPImage(contentsOfFile: Fixtures.repositoryRoot + "/" + path) }()

  @Test func detectLines() throws {
    let detector = try FaceDetector(
      options: FaceDetectorOptions(
        baseOptions: BaseOptions(modelAssetPath: Fixtures.weightsDirectory + "/face_landmarker.task")))
    #expect(try Self.line(["detect"]) == Self.expected(detector.detect(image: Self.image)))
    let options = FaceDetectorOptions(
      baseOptions: BaseOptions(modelAssetPath: Fixtures.weightsDirectory + "/face_landmarker.task"))
    options.isTrackingEnabled = true
    let tracked = try FaceDetector(options: options).detect(image: Self.image)
    #expect(tracked.faceTrackingIds == [1])
    #expect(
      try Self.line(["detect", "--tracking"])
        == Self.expected(tracked, outputs: LandmarkerOutputs(extras: [.faceTrackingIds])))
  }

  @Test(arguments: [
    LandmarkerOutputs(), LandmarkerOutputs(blendshapes: true), LandmarkerOutputs(blendshapes: true, matrices: true),
    LandmarkerOutputs(extras: [.faceHeadPoses]),
    LandmarkerOutputs(blendshapes: true, matrices: true, extras: Set(LandmarkerExtraOutput.allCases)),
  ])
  func landmarkLines(outputs: LandmarkerOutputs) throws {
    let options = FaceLandmarkerOptions(
      baseOptions: BaseOptions(modelAssetPath: Fixtures.weightsDirectory + "/face_landmarker.task"))
    options.outputFaceBlendshapes = outputs.blendshapes
    options.outputFacialTransformationMatrixes = outputs.matrices
    let extras = outputs.extras
    options.outputFaceHeadPoses = extras.contains(.faceHeadPoses)
    options.outputFaceMetricLandmarks = extras.contains(.faceMetricLandmarks)
    options.outputFaceIrisDistances = extras.contains(.faceIrisDistances)
    options.isTrackingEnabled = extras.contains(.faceTrackingIds)
    options.outputFaceScores = extras.contains(.faceScores)
    let result = try FaceLandmarker(options: options).detect(image: Self.image)
    #expect(result.faceHeadPoses.count == (extras.contains(.faceHeadPoses) ? 1 : 0))
    #expect(result.faceMetricLandmarks.count == (extras.contains(.faceMetricLandmarks) ? 1 : 0))
    #expect(result.facialTransformationMatrixes.count == (outputs.matrices ? 1 : 0))
    let wanted: [(Bool, String)] = [
      (outputs.blendshapes, "--blendshapes"), (outputs.matrices, "--transformation-matrices"),
      (extras.contains(.faceHeadPoses), "--head-pose"), (extras.contains(.faceMetricLandmarks), "--metric-mesh"),
      (extras.contains(.faceIrisDistances), "--iris-distance"), (extras.contains(.faceTrackingIds), "--tracking"),
      (extras.contains(.faceScores), "--scores"),
    ]
    let flags = wanted.filter(\.0).map(\.1)
    #expect(try Self.line(["landmark"] + flags) == Self.expected(result, outputs: outputs))
  }

  /// `--region` gives the library's landmarks for the region; a malformed one is a usage error.
  @Test func regionLines() throws {
    let landmarker = try FaceLandmarker(
      options: FaceLandmarkerOptions(
        baseOptions: BaseOptions(modelAssetPath: Fixtures.weightsDirectory + "/face_landmarker.task")))
    let regions = [
      FaceRegion(boundingBox: CGRect(x: 177, y: 82, width: 95, height: 95), rotationDegrees: 5),
      FaceRegion(boundingBox: CGRect(x: 0, y: 400, width: 60, height: 60)),
    ]
    let result = try landmarker.detect(image: Self.image, faceRegions: regions)
    #expect(result.faceLandmarks.count == 1)
    #expect(
      try Self.line(["landmark", "--region", "177,82,95,95,5", "--region", "0,400,60,60"]) == Self.expected(result))
    // A face at the left or top edge has a negative x or y, which is the option's value, not
    // a flag ("Missing value for '--region'").
    let edge = try landmarker.detect(
      image: Self.image, faceRegions: [FaceRegion(boundingBox: CGRect(x: -8, y: -6, width: 300, height: 300))])
    #expect(try Self.line(["landmark", "--region", "-8,-6,300,300"]) == Self.expected(edge))
    for bad in ["1,2,3", "1,2,0,4", "a,b,c,d", "1,2,3,4,5,6", "1,2,3,nan"] {
      let run = try CLI.run(["landmark", "--region", bad, Self.path])
      #expect(run.status == 2, "\(bad): \(run.stderr)")
    }
  }

  /// `--crops DIR` writes each face's aligned crop.
  @Test func cropsAreWritten() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("visage-crops-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let line = try Self.line(["landmark", "--crops", folder, "--crop-size", "64"])
    let files = try FileManager.default.contentsOfDirectory(atPath: folder)
    #expect(files == ["0000-astronaut-face1.png"], "\(files)")
    // The line names them, after the result.
    #expect(line.hasSuffix(#""faceCrops": ["\#(folder)/0000-astronaut-face1.png"]}"#), "\(line.suffix(120))")
    let crop = try MPImage(contentsOfFile: folder + "/" + files[0])
    #expect(crop.width == 64 && crop.height == 64)
    #expect(try CLI.run(["landmark", "--crops", folder, "--crop-size", "0", Self.path]).status == 2)
  }

  @Test func analyzeLines() throws {
    let options = FaceAnalyzerOptions(
      baseOptions: BaseOptions(modelAssetPath: Fixtures.weightsDirectory + "/face_landmarker.task"),
      landmarkMode: .all, contourMode: .all, classificationMode: .all)
    let faces = try FaceAnalyzer(options: options).analyze(image: Self.image)
    #expect(
      try Self.line(["analyze", "--landmarks", "--contours", "--classification"])
        == Self.expected(FacesResult(faces: faces)))
  }
}
