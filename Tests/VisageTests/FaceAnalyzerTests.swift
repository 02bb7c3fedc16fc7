import Foundation
import Testing
import Visage
import VisageImageIO
import VisageTestSupport

/// FaceAnalyzer's ML Kit features checked for meaning: angles follow rotations and mirrors,
/// probabilities follow expressions (on the edited faces of Tools/make_analysis_fixtures.py),
/// tracking IDs follow faces, and contours and landmarks sit on the features they name.
@Suite struct FaceAnalyzerTests {
  static func options(_ mode: RunningMode = .image) -> FaceAnalyzerOptions {
    let options = FaceAnalyzerOptions(
      baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath), runningMode: mode)
    options.landmarkMode = .all
    options.contourMode = .all
    options.classificationMode = .all
    return options
  }

  static func image(_ path: String) throws -> MPImage {
    try MPImage(contentsOfFile: Fixtures.fixturePath(path))
  }

  static func onlyFace(_ path: String, _ options: FaceAnalyzerOptions = options()) throws -> Face {
    let faces = try FaceAnalyzer(options: options).analyze(image: image(path))
    #expect(faces.count == 1, "\(path): \(faces.count) faces")
    return try #require(faces.first)
  }

  // MARK: Options

  @Test func badOptionsAreRefusedClearly() throws {
    for size: Float in [-0.1, 1.5, .nan] {
      let options = Self.options()
      options.minFaceSize = size
      #expect { try FaceAnalyzer(options: options) } throws: { "\($0)".contains("minFaceSize") }
    }
    var options = Self.options()
    options.maximumFaceCount = 0
    #expect { try FaceAnalyzer(options: options) } throws: { "\($0)".contains("maximumFaceCount") }
    #expect { try FaceAnalyzer(options: Self.options(.liveStream)) } throws: { "\($0)".contains("live stream") }
    options = Self.options()
    options.performanceMode = .accurate
    options.fullRangeDetectorModelAssetPath = "/nonexistent/full_range.tflite"
    #expect { try FaceAnalyzer(options: options) } throws: { "\($0)".contains("full-range") }
  }

  @Test func wrongRunningModeIsRefused() throws {
    let image = try Self.image("images/astronaut.png")
    #expect(throws: VisionTaskError.self) { try FaceAnalyzer(options: Self.options(.video)).analyze(image: image) }
    #expect(throws: VisionTaskError.self) {
      try FaceAnalyzer(options: Self.options()).analyze(videoFrame: image, timestampInMilliseconds: 0)
    }
  }

  @Test func modesDecideWhatIsComputed() throws {
    let bare = try Self.onlyFace(
      "images/astronaut.png", FaceAnalyzerOptions(baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath))
    )
    #expect(bare.landmarks.isEmpty && bare.contours.isEmpty && bare.smilingProbability == nil)
    #expect(bare.leftEyeOpenProbability == nil && bare.trackingID == nil)
    let full = try Self.onlyFace("images/astronaut.png")
    #expect(full.landmarks.map(\.type) == FaceLandmarkType.allCases)
    #expect(full.contours.map(\.type) == FaceContourType.allCases)
    let counts = full.contours.map(\.points.count)
    #expect(counts == [36, 5, 5, 5, 5, 16, 16, 11, 9, 9, 9, 2, 3, 1, 1], "ML Kit's point counts")
    #expect(counts.reduce(0, +) == 133)
    #expect(full.frame == bare.frame && full.headEulerAngleZ == bare.headEulerAngleZ)
  }

  // MARK: Frame and angles

  @Test func frameHoldsTheFace() throws {
    let face = try Self.onlyFace("images/astronaut.png")
    // MediaPipe's detector box for this face is (177, 82, 95, 95): the mesh spans about it.
    #expect(abs(face.frame.midX - 224.5) < 10 && abs(face.frame.midY - 129.5) < 15, "\(face.frame)")
    #expect((80...120).contains(face.frame.width) && (90...130).contains(face.frame.height), "\(face.frame)")
  }

  /// The same head pasted at the corners, edges and centre of a canvas looks the same, so it
  /// reads the same angles wherever it is.
  @Test func anglesDoNotDependOnWhereTheFaceIs() throws {
    let source = try Self.image("images/astronaut.png")
    let analyzer = try FaceAnalyzer(options: Self.options())
    var angles: [(x: Float, y: Float, z: Float)] = []
    for cy in [100, 240, 380] {
      for cx in [100, 320, 540] {
        // 640×480 gray, with the 180×180 square around the face (centre 224, 130) at (cx, cy).
        var pixels = [UInt8](repeating: 200, count: 640 * 480 * 3)
        for y in 0..<180 {
          for x in 0..<180 {
            for c in 0..<3 {
              pixels[((cy - 90 + y) * 640 + cx - 90 + x) * 3 + c] = source.pixels[((40 + y) * 512 + 134 + x) * 3 + c]
            }
          }
        }
        let face = try #require(try analyzer.analyze(image: MPImage(width: 640, height: 480, rgb: pixels)).first)
        angles.append((face.headEulerAngleX, face.headEulerAngleY, face.headEulerAngleZ))
      }
    }
    let spread = { (values: [Float]) in values.max()! - values.min()! }
    #expect(spread(angles.map(\.x)) < 4 && spread(angles.map(\.y)) < 4, "\(angles)")
  }

  /// The rotate sequence turns the picture about the face, counter-clockwise positive.
  @Test func eulerZFollowsInPlaneRotation() throws {
    let angles: [Float] = [0, 6, 12, 18, 24, 30, 20, 10, 0, -10, -20, -30, -20, -10]
    let analyzer = try FaceAnalyzer(options: Self.options())
    let faces = try angles.indices.map { i in
      try #require(
        try analyzer.analyze(image: Self.image(String(format: "landmarker/frames/rotate/%03d.jpg", i))).first)
    }
    for (angle, face) in zip(angles, faces) {
      let turn = face.headEulerAngleZ - faces[0].headEulerAngleZ
      #expect(abs(turn - angle) <= 3, "picture turned \(angle)°, Euler Z moved \(turn)°")
    }
  }

  @Test func eulerYIsPositiveTowardTheCamerasRightAndFlipsInTheMirror() throws {
    let analyzer = try FaceAnalyzer(options: Self.options())
    let image = try Self.image("analysis/turned_right.jpg")
    let turned = try #require(try analyzer.analyze(image: image).first)
    let mirrored = try #require(try analyzer.analyze(image: Self.mirror(image)).first)
    let straight = try #require(try analyzer.analyze(image: Self.image("images/astronaut.png")).first)
    #expect(
      turned.headEulerAngleY > 5 && turned.headEulerAngleY > straight.headEulerAngleY + 5,
      "Y \(turned.headEulerAngleY), straight \(straight.headEulerAngleY)")
    #expect(mirrored.headEulerAngleY < -5, "mirror Y \(mirrored.headEulerAngleY)")
    #expect(abs(mirrored.headEulerAngleY + turned.headEulerAngleY) < 3)
    // The mirror also flips roll and keeps pitch.
    #expect(
      abs(mirrored.headEulerAngleZ + turned.headEulerAngleZ) < 2
        && abs(mirrored.headEulerAngleX - turned.headEulerAngleX) < 2)
  }

  /// Stored pixels turned a quarter counter-clockwise with orientation `.right` describe the
  /// same upright picture: ML Kit's answers are about that picture.
  @Test func orientationIsUndone() throws {
    let upright = try Self.image("images/astronaut.png")
    let stored = try MPImage(
      width: upright.height, height: upright.width, rgb: Self.quarterTurnCounterClockwise(upright), orientation: .right)
    let analyzer = try FaceAnalyzer(options: Self.options())
    let a = try #require(try analyzer.analyze(image: upright).first)
    let b = try #require(try analyzer.analyze(image: stored).first)
    #expect(
      abs(a.frame.minX - b.frame.minX) < 2 && abs(a.frame.minY - b.frame.minY) < 2
        && abs(a.frame.width - b.frame.width) < 2, "\(a.frame) vs \(b.frame)")
    #expect(
      abs(a.headEulerAngleZ - b.headEulerAngleZ) < 1.5 && abs(a.headEulerAngleY - b.headEulerAngleY) < 1.5
        && abs(a.headEulerAngleX - b.headEulerAngleX) < 1.5)
    let eye = try #require(b.landmark(ofType: .leftEye)).position
    let eye0 = try #require(a.landmark(ofType: .leftEye)).position
    #expect(abs(eye.x - eye0.x) < 2 && abs(eye.y - eye0.y) < 2)
  }

  /// The landmarker's `faceHeadPoses` are the analyzer's angles for the same faces, in the
  /// upright picture whatever the stored orientation.
  @Test func landmarkerHeadPosesAreTheAnalyzersAngles() throws {
    let upright = try Self.image("images/astronaut.png")
    let turned = try MPImage(
      width: upright.height, height: upright.width, rgb: Self.quarterTurnCounterClockwise(upright), orientation: .right)
    let landmarkerOptions = FaceLandmarkerOptions(baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath))
    landmarkerOptions.outputFaceHeadPoses = true
    let landmarker = try FaceLandmarker(options: landmarkerOptions)
    let analyzer = try FaceAnalyzer(options: Self.options())
    for image in [upright, turned, try Self.image("analysis/neutral.jpg")] {
      let result = try landmarker.detect(image: image)
      #expect(result.facialTransformationMatrixes.isEmpty, "matrices were not asked for")
      let poses = result.faceHeadPoses.compactMap { $0 }
      #expect(poses.count == 1)
      let pose = try #require(poses.first)
      let face = try #require(try analyzer.analyze(image: image).first)
      #expect(
        pose == HeadEulerAngles(x: face.headEulerAngleX, y: face.headEulerAngleY, z: face.headEulerAngleZ),
        "\(pose) vs \(face)")
    }
  }

  /// `analyzeInDetail` gives `analyze`'s faces with the detector's box and score and the
  /// landmark model's presence, in the upright picture as the faces are.
  @Test func detailsCarryTheDetectionAndThePresence() throws {
    let upright = try Self.image("images/astronaut.png")
    let turned = try MPImage(
      width: upright.height, height: upright.width, rgb: Self.quarterTurnCounterClockwise(upright), orientation: .right)
    let analyzer = try FaceAnalyzer(options: Self.options())
    var boxes: [CGRect] = []
    for image in [upright, turned] {
      let detail = try #require(try analyzer.analyzeInDetail(image: image).first)
      #expect(try detail.face == #require(try analyzer.analyze(image: image).first))
      #expect(detail.mesh.count == 478 && detail.meshDepths.count == 478)
      let box = try #require(detail.detectionFrame)
      let score = try #require(detail.detectionConfidence)
      #expect(score > 0.5 && score <= 1 && detail.presenceConfidence > 0.5 && detail.presenceConfidence <= 1)
      // The detector's box sits on the face the mesh outlines.
      let overlap = box.intersection(detail.face.frame)
      #expect(overlap.width * overlap.height > 0.5 * box.width * box.height, "\(box) vs \(detail.face.frame)")
      boxes.append(box)
    }
    // The detector sees the turned pixels differently (its letterbox differs) by a few pixels.
    let slack = 0.05 * boxes[0].width
    #expect(
      abs(boxes[0].minX - boxes[1].minX) < slack && abs(boxes[0].minY - boxes[1].minY) < slack
        && abs(boxes[0].width - boxes[1].width) < slack, "\(boxes)")
  }

  // MARK: Classification

  @Test func smilingIsHighOnASmileAndLowOnANeutralFace() throws {
    let smiling = try #require(try Self.onlyFace("images/astronaut.png").smilingProbability)
    let neutral = try #require(try Self.onlyFace("analysis/neutral.jpg").smilingProbability)
    #expect(smiling > 0.9 && neutral < 0.1, "smiling \(smiling), neutral \(neutral)")
  }

  @Test func eyeOpenProbabilityDropsOnClosedEyes() throws {
    let open = try Self.onlyFace("images/astronaut.png")
    let closed = try Self.onlyFace("analysis/eyes_closed.jpg")
    let oneClosed = try Self.onlyFace("analysis/left_eye_closed.jpg")
    let (openLeft, openRight) = (try #require(open.leftEyeOpenProbability), try #require(open.rightEyeOpenProbability))
    let (closedLeft, closedRight) = (
      try #require(closed.leftEyeOpenProbability), try #require(closed.rightEyeOpenProbability)
    )
    #expect(openLeft > 0.9 && openRight > 0.9, "open eyes: \(openLeft), \(openRight)")
    #expect(closedLeft < 0.1 && closedRight < 0.1, "closed eyes: \(closedLeft), \(closedRight)")
    // Only the subject's left eye (on the image's right) is shut.
    let (left, right) = (
      try #require(oneClosed.leftEyeOpenProbability), try #require(oneClosed.rightEyeOpenProbability)
    )
    #expect(left < 0.5 && right > 0.9, "left eye shut: left \(left), right \(right)")
  }

  // MARK: Size and tracking

  @Test func minFaceSizeFiltersSmallFaces() throws {
    let options = Self.options()
    options.minFaceSize = 0.05
    let both = try FaceAnalyzer(options: options).analyze(image: Self.image("analysis/two_sizes_640x480.jpg"))
    #expect(both.count == 2)
    let widths = both.map { $0.frame.width / 640 }.sorted()
    options.minFaceSize = Float((widths[0] + widths[1]) / 2)
    let big = try FaceAnalyzer(options: options).analyze(image: Self.image("analysis/two_sizes_640x480.jpg"))
    #expect(big.count == 1 && big.first.map { $0.frame.width / 640 } == widths[1], "widths \(widths)")
    options.minFaceSize = Float(widths[1]) + 0.01
    #expect(try FaceAnalyzer(options: options).analyze(image: Self.image("analysis/two_sizes_640x480.jpg")).isEmpty)
  }

  @Test func trackingIDsFollowFacesThroughASequence() throws {
    let options = Self.options(.video)
    options.isTrackingEnabled = true
    let analyzer = try FaceAnalyzer(options: options)
    var ids: [[Int]] = []
    for i in 0..<12 {
      let faces = try analyzer.analyze(
        videoFrame: Self.image(String(format: "landmarker/frames/two_faces/%03d.jpg", i)),
        timestampInMilliseconds: i * 33)
      // Sorted left to right so a face keeps its place in the list.
      ids.append(faces.sorted { $0.frame.midX < $1.frame.midX }.compactMap(\.trackingID))
    }
    #expect(ids.allSatisfy { $0 == ids[0] } && ids[0].count == 2 && Set(ids[0]).count == 2, "\(ids)")
  }

  @Test func aFaceThatLeavesAndReturnsGetsANewID() throws {
    let options = Self.options(.video)
    options.isTrackingEnabled = true
    let analyzer = try FaceAnalyzer(options: options)
    var ids: [Int?] = []
    for i in 0..<14 {
      let faces = try analyzer.analyze(
        videoFrame: Self.image(String(format: "landmarker/frames/leave_return/%03d.jpg", i)),
        timestampInMilliseconds: i * 33)
      #expect(faces.count <= 1)
      ids.append(faces.first?.trackingID)
    }
    // Runs of frames with the face, separated by frames without it.
    let runs = ids.split(separator: nil, omittingEmptySubsequences: true).map { Array($0.compactMap { $0 }) }
    #expect(runs.count >= 2, "\(ids)")
    for run in runs { #expect(Set(run).count == 1, "one ID while in view: \(ids)") }
    #expect(Set(runs.map { $0[0] }).count == runs.count, "a new ID after each return: \(ids)")
  }

  // MARK: Landmarks and contours on their features

  @Test func contoursLieOnTheirFeatures() throws {
    let face = try Self.onlyFace("images/astronaut.png")
    func c(_ type: FaceContourType) throws -> [CGPoint] { try #require(face.contour(ofType: type)).points }
    let oval = try c(.face)
    let leftEye = try c(.leftEye)
    let rightEye = try c(.rightEye)
    // Closed outlines go clockwise in the image (positive shoelace area with y down).
    #expect(Self.signedArea(oval) > 0 && Self.signedArea(leftEye) > 0 && Self.signedArea(rightEye) > 0)
    // The face outline starts at the top of the forehead and holds every other point.
    #expect(oval[0].y == oval.map(\.y).min() || abs(oval[0].y - oval.map(\.y).min()!) < 3)
    for contour in face.contours where contour.type != .face {
      for p in contour.points { #expect(Self.inside(p, oval), "\(contour.type) point \(p) outside the face") }
    }
    // The eyes: the subject's left on the image's right; each eye's iris centre, which the
    // mesh model predicts separately, inside its outline; each eye below its brow.
    #expect(Self.mean(leftEye).x > Self.mean(rightEye).x)
    let astronautIris = try Self.irisCentres("images/astronaut.png")
    #expect(Self.inside(astronautIris.left, leftEye) && Self.inside(astronautIris.right, rightEye))
    #expect(try Self.mean(c(.leftEyebrowTop)).y < Self.mean(c(.leftEyebrowBottom)).y)
    #expect(try Self.mean(c(.leftEyebrowBottom)).y < Self.mean(leftEye).y)
    #expect(try Self.mean(c(.rightEyebrowTop)).y < Self.mean(c(.rightEyebrowBottom)).y)
    #expect(try Self.mean(c(.rightEyebrowBottom)).y < Self.mean(rightEye).y)
    // Lips from top to bottom; the nose between the eyes and the mouth.
    let lips = try [c(.upperLipTop)[5], c(.upperLipBottom)[4], c(.lowerLipTop)[4], c(.lowerLipBottom)[4]].map(\.y)
    #expect(lips == lips.sorted(), "\(lips)")
    let bridge = try c(.noseBridge)
    let bottom = try c(.noseBottom)
    #expect(bridge[0].y < bridge[1].y && abs(bridge[0].y - Self.mean(leftEye).y) < 10)
    #expect(bottom[0].x < bottom[1].x && bottom[1].x < bottom[2].x && bottom[1].y < lips[0])
    // Open outlines run from the subject's right (image left) to the subject's left.
    for type in [FaceContourType.leftEyebrowTop, .rightEyebrowBottom, .upperLipTop, .lowerLipBottom] {
      let points = try c(type)
      #expect(points.first!.x < points.last!.x, "\(type)")
    }
    #expect(try c(.leftCheek)[0].x > c(.rightCheek)[0].x)
  }

  @Test func landmarksLieOnTheirFeatures() throws {
    let face = try Self.onlyFace("images/astronaut.png")
    func p(_ type: FaceLandmarkType) throws -> CGPoint { try #require(face.landmark(ofType: type)).position }
    let leftEye = try #require(face.contour(ofType: .leftEye)).points
    let rightEye = try #require(face.contour(ofType: .rightEye)).points
    #expect(try Self.inside(p(.leftEye), leftEye) && Self.inside(p(.rightEye), rightEye))
    #expect(try p(.leftEar).x > p(.leftEye).x && p(.rightEar).x < p(.rightEye).x)
    #expect(try p(.mouthLeft).x > p(.mouthRight).x)
    #expect(try p(.leftCheek).x > p(.noseBase).x && p(.rightCheek).x < p(.noseBase).x)
    #expect(try p(.leftEye).y < p(.noseBase).y && p(.noseBase).y < p(.mouthBottom).y)
    #expect(try p(.mouthBottom).y > max(p(.mouthLeft).y, p(.mouthRight).y))
    // The ears are the face's outermost points.
    let oval = try #require(face.contour(ofType: .face)).points
    #expect(try abs(p(.leftEar).x - oval.map(\.x).max()!) < 3 && abs(p(.rightEar).x - oval.map(\.x).min()!) < 3)
  }

  /// Accurate mode's full-range detector finds the crowd's small faces; fast mode finds none.
  @Test func accurateModeFindsSmallFaces() throws {
    let options = Self.options()
    options.minFaceSize = 0.05
    options.maximumFaceCount = 20
    let image = try Self.image("landmarker/images/crowd_1600x1040.jpg")
    #expect(try FaceAnalyzer(options: options).analyze(image: image).isEmpty)
    options.performanceMode = .accurate
    let faces = try FaceAnalyzer(options: options).analyze(image: image)
    #expect(faces.count == 15, "\(faces.count) faces")
  }

  // MARK: Helpers

  static func mean(_ points: [CGPoint]) -> CGPoint {
    CGPoint(
      x: points.map(\.x).reduce(0, +) / CGFloat(points.count), y: points.map(\.y).reduce(0, +) / CGFloat(points.count))
  }

  static func signedArea(_ polygon: [CGPoint]) -> CGFloat {
    let next: [CGPoint] = Array(polygon.dropFirst()) + [polygon[0]]
    let crosses: [CGFloat] = zip(polygon, next).map { a, b in a.x * b.y - b.x * a.y }
    return crosses.reduce(0, +) / 2
  }

  static func inside(_ p: CGPoint, _ polygon: [CGPoint]) -> Bool {
    var inside = false
    for (a, b) in zip(polygon, polygon.dropFirst() + [polygon[0]]) where (a.y > p.y) != (b.y > p.y) {
      if p.x < a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x) { inside.toggle() }
    }
    return inside
  }

  /// The mesh's iris centres (468 subject's right, 473 subject's left), in pixels.
  static func irisCentres(_ path: String) throws -> (left: CGPoint, right: CGPoint) {
    let image = try image(path)
    let landmarker = try FaceLandmarker(modelPath: BundledModel.taskBundlePath)
    let mesh = try #require(try landmarker.detect(image: image).faceLandmarks.first)
    func pixel(_ i: Int) -> CGPoint {
      CGPoint(x: Double(mesh[i].x) * Double(image.width), y: Double(mesh[i].y) * Double(image.height))
    }
    return (pixel(473), pixel(468))
  }

  static func mirror(_ image: MPImage) throws -> MPImage {
    var pixels = image.pixels
    for y in 0..<image.height {
      for x in 0..<image.width {
        for c in 0..<3 {
          pixels[(y * image.width + x) * 3 + c] = image.pixels[(y * image.width + image.width - 1 - x) * 3 + c]
        }
      }
    }
    return try MPImage(width: image.width, height: image.height, rgb: pixels)
  }

  /// The pixels turned 90° counter-clockwise (the result is height × width).
  static func quarterTurnCounterClockwise(_ image: MPImage) -> [UInt8] {
    let (w, h) = (image.width, image.height)
    var out = [UInt8](repeating: 0, count: w * h * 3)
    for y in 0..<h {
      for x in 0..<w {
        // Upright (x, y) lands at stored (y, w - 1 - x) in a picture h wide.
        let dst = ((w - 1 - x) * h + y) * 3
        for c in 0..<3 { out[dst + c] = image.pixels[(y * w + x) * 3 + c] }
      }
    }
    return out
  }
}
