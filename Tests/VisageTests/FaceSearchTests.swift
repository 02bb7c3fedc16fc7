import Foundation
import Testing
import VisageImageIO
import VisageTestSupport

@testable import Visage

/// The wider searches (docs/every-face.md): all scales (`searchesAllScales`, `--range all`) and any
/// rotation (`searchesAnyRotation`, `--any-rotation`). MediaPipe has neither, so the checks are
/// against known geometry: the upright result turned, and the crowd set's pasted faces.
@Suite(.timeLimit(.minutes(minutesAllowed(10)))) struct FaceSearchTests {
  /// The all-scales search's threshold docs/every-face.md recommends: its score is the product of
  /// three looks' scores, so MediaPipe's default 0.5 keeps fewer faces than it could.
  static let allScalesThreshold: Float = 0.4

  static func detectorOptions(allScales: Bool = true, anyRotation: Bool = true, minDetectionConfidence: Float = 0.5)
    -> FaceDetectorOptions
  {
    let options = FaceDetectorOptions(baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath))
    options.minDetectionConfidence = minDetectionConfidence
    options.searchesAllScales = allScales
    options.searchesAnyRotation = anyRotation
    options.fullRangeDetectorModelAssetPath = FullRangeTests.fullRangePath
    return options
  }

  static func astronaut() throws -> MPImage {
    try MPImage(contentsOfFile: Fixtures.fixturePath("images/astronaut.png"))
  }

  /// The image turned by 180°: the pixel order reversed.
  static func upsideDown(_ image: MPImage) throws -> MPImage {
    let pixels = image.pixels
    var turned = [UInt8](repeating: 0, count: pixels.count)
    let n = image.width * image.height
    for i in 0..<n {
      for c in 0..<3 { turned[(n - 1 - i) * 3 + c] = pixels[i * 3 + c] }
    }
    return try MPImage(width: image.width, height: image.height, rgb: turned)
  }

  @Test func tilesCoverALargePhotoAtEveryLevel() {
    let tiles = SearchTile.tiles(imageWidth: 4000, imageHeight: 3000).count
    // 288 px tiles (18 × 13), 576 (9 × 7), 1152 (5 × 4), 2304 (2 × 2).
    #expect(tiles == 234 + 63 + 20 + 4)
    #expect(SearchTile.tiles(imageWidth: 288, imageHeight: 200).isEmpty)
    // The short-range model's 112 px tiles, sharing at least 28 px: 48 × 36.
    let small = SearchTile.smallFaceTiles(imageWidth: 4000, imageHeight: 3000)
    #expect(small.count == 48 * 36 && small.allSatisfy { $0.side == 112 })
    #expect(small.last == SearchTile(x0: 4000 - 112, y0: 3000 - 112, side: 112))
    #expect(SearchTile.smallFaceTiles(imageWidth: 112, imageHeight: 80).isEmpty)
  }

  /// A thin image gets no level whose smallest face cannot fit across it (issue 47): a
  /// 1×32768 image took 283 tiles and 390 small ones a turn, 7.6 s with any rotation.
  @Test func aThinImageGetsNoTilesTooLargeForIt() {
    #expect(SearchTile.tiles(imageWidth: 1, imageHeight: 32768).isEmpty)
    #expect(SearchTile.smallFaceTiles(imageWidth: 32768, imageHeight: 19).isEmpty)
    // 20 px across, level 0's smallest face (288 px tiles), and the small tiles' too.
    let thin = SearchTile.tiles(imageWidth: 20, imageHeight: 32768)
    #expect(!thin.isEmpty && thin.allSatisfy { $0.side == 288 })
    #expect(SearchTile.smallFaceTiles(imageWidth: 20, imageHeight: 32768).count == 390)
  }

  /// A face 24 px wide in a 768×512 image of noise (the astronaut at a quarter of its size):
  /// the short-range model's small tiles give it a candidate, and the all-scales search
  /// (upright, as the face is) reports it and nothing else.
  @Test func smallFaceTilesFindAFace24PixelsWide() throws {
    let astronaut = try Self.astronaut()
    let (w, h, x0, y0) = (768, 512, 300, 200)
    var random = RandomSource(seed: 24)
    var pixels = (0..<(w * h * 3)).map { _ in UInt8(random.int(in: 96..<160)) }
    // The astronaut at a quarter of its size (the parity sweep's resize), at (x0, y0).
    let small = SweepImages.resize(astronaut.pixels, width: 512, height: 512, to: 128, 128)
    for y in 0..<128 {
      pixels.replaceSubrange(
        ((y0 + y) * w + x0) * 3..<((y0 + y) * w + x0 + 128) * 3, with: small[y * 128 * 3..<(y + 1) * 128 * 3])
    }
    let image = try MPImage(width: w, height: h, rgb: pixels)
    // MediaPipe's box on the astronaut, (177, 82, 95, 95), a quarter of the size.
    let truth = [CrowdTruth.Face(x: Double(x0) + 44.25, y: Double(y0) + 20.5, size: 23.75, turn: 0)]
    let short = try DetectorGraph(model: ModelLoader.detectorModel(at: BundledModel.taskBundlePath))
    let candidates = try short.candidates(
      image, tiles: SearchTile.smallFaceTiles(imageWidth: w, imageHeight: h), rotationDegrees: 0,
      minScore: FaceSearch.smallFaceCandidateScore)
    let boxes = candidates.map {
      CGRect(
        x: Double($0.xmin) * Double(w), y: Double($0.ymin) * Double(h), width: Double($0.width) * Double(w),
        height: Double($0.height) * Double(h))
    }
    #expect(CrowdTruth.match(truth, boxes).0 == [0], "\(boxes)")
    let found = try FaceDetector(
      options: Self.detectorOptions(anyRotation: false, minDetectionConfidence: Self.allScalesThreshold)
    ).detect(image: image).detections
    let (matched, extra) = CrowdTruth.match(truth, found.map(\.boundingBox))
    #expect(matched == [0] && extra == 0, "\(found.map(\.boundingBox))")
  }

  /// With two threads each takes its share of the tiles and looks, with detectors of its own:
  /// the faces are exactly those one thread finds.
  @Test func threadsShareTheSearchAndFindTheSameFaces() throws {
    let image = try MPImage(contentsOfFile: Fixtures.fixturePath("crowd/crowd_02.jpg"))
    let options = Self.detectorOptions(minDetectionConfidence: Self.allScalesThreshold)
    let one = try FaceDetector(options: options).detect(image: image).detections
    options.baseOptions.threadCount = 2
    let two = try FaceDetector(options: options).detect(image: image).detections
    #expect(one.count >= 8)
    #expect(one == two)
  }

  @Test func allScalesReportTheAstronautOnce() throws {
    let result = try FaceDetector(options: Self.detectorOptions(anyRotation: false)).detect(image: Self.astronaut())
    #expect(result.detections.count == 1)
    let box = try #require(result.detections.first).boundingBox
    // MediaPipe's short-range box is (177, 82, 95, 95); the full range's is (174, 70, 104, 104).
    #expect(abs(box.midX - 224) < 6 && abs(box.midY - 129) < 8 && abs(box.width - 99) < 8)
  }

  @Test func anyRotationFindsTheUpsideDownAstronautWithItsRotation() throws {
    let image = try Self.upsideDown(Self.astronaut())
    let result = try FaceDetector(options: Self.detectorOptions(allScales: false)).detect(image: image)
    let face = try #require(result.detections.first)
    let rotation = try #require(face.inPlaneRotation(imageWidth: image.width, imageHeight: image.height))
    // Upright, the eye line is at about +5°; turned by 180°, at about −175°.
    #expect(abs(abs(rotation) - 175) < 8, "\(rotation)")
    #expect(result.detections.count == 1)
  }

  /// The landmarker builds its region from the turned detection as usual, so the upside-down
  /// astronaut gets the upright one's 478 landmarks turned (measured: 1.56 px apart on average,
  /// 3.42 px at most, in the 512 × 512 image; the bars are 2.5 px and 6 px).
  @Test func upsideDownFaceGetsTheUprightLandmarksTurned() throws {
    let options = FaceLandmarkerOptions(baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath))
    options.searchesAnyRotation = true
    let landmarker = try FaceLandmarker(options: options)
    let upright = try #require(try landmarker.detect(image: Self.astronaut()).faceLandmarks.first)
    let turned = try #require(try landmarker.detect(image: Self.upsideDown(Self.astronaut())).faceLandmarks.first)
    #expect(upright.count == 478 && turned.count == 478)
    let errors = zip(upright, turned).map { u, t in
      hypot(Double(1 - u.x - t.x), Double(1 - u.y - t.y)) * 512
    }
    let mean = errors.reduce(0, +) / Double(errors.count)
    let worst = errors.max() ?? 0
    print("upside-down landmarks: mean \(mean) px, largest \(worst) px")
    #expect(mean < 2.5 && worst < 6, "mean \(mean) px, largest \(worst) px")
  }

  /// `image` turned clockwise by `degrees` about its centre (nearest pixel, black outside).
  static func tilted(_ image: MPImage, degrees: Double) throws -> MPImage {
    let (w, h) = (image.width, image.height)
    let (c, s) = (cos(degrees * .pi / 180), sin(degrees * .pi / 180))
    let pixels = image.pixels
    var turned = [UInt8](repeating: 0, count: w * h * 3)
    for y in 0..<h {
      for x in 0..<w {
        let (dx, dy) = (Double(x) - Double(w) / 2, Double(y) - Double(h) / 2)
        let sx = Int((c * dx + s * dy + Double(w) / 2).rounded(.down))
        let sy = Int((-s * dx + c * dy + Double(h) / 2).rounded(.down))
        guard (0..<w).contains(sx), (0..<h).contains(sy) else { continue }
        for k in 0..<3 { turned[(y * w + x) * 3 + k] = pixels[(sy * w + sx) * 3 + k] }
      }
    }
    return try MPImage(width: w, height: h, rgb: turned)
  }

  /// A look at a tilted face sees it upright: its box is the size a look at the upright face
  /// gives (the upright model's box on the tilted face is not), centred where the face is; a look whose middle
  /// half misses the face does not report it (it may report a weak guess there).
  @Test func aLookSeesATiltedFaceUprightAndCentred() throws {
    let short = try DetectorGraph(model: ModelLoader.detectorModel(at: BundledModel.taskBundlePath))
    let found = try #require(try short.detect(Self.astronaut(), minScore: 0.5, suppressionThreshold: 0.3).first)
    let uprightRect = try #require(
      DetectorGraph.lookRect(around: found, scale: FaceSearch.lookScale, imageWidth: 512, imageHeight: 512))
    let upright = try #require(
      try short.look(Self.astronaut(), rect: uprightRect, minScore: 0.5, suppressionThreshold: 0.3))
    let image = try Self.tilted(Self.astronaut(), degrees: 25)
    let seen = try #require(try short.detect(image, minScore: 0.5, suppressionThreshold: 0.3).first)
    let rect = try #require(
      DetectorGraph.lookRect(around: seen, scale: FaceSearch.lookScale, imageWidth: 512, imageHeight: 512))
    let face = try #require(try short.look(image, rect: rect, minScore: 0.5, suppressionThreshold: 0.3))
    #expect(face.score > 0.9)
    #expect(abs(seen.width / upright.width - 1) > 0.05, "\(seen.width) vs \(upright.width)")
    #expect(abs(face.width / upright.width - 1) < 0.03, "\(face.width) vs \(upright.width)")
    // The look's keypoints are the tilted face's: its eye line turned by the tilt, as the
    // upright model's (rougher) keypoints on the tilted image also say.
    let tilt = face.eyeLineDegrees(imageWidth: 512, imageHeight: 512)
    let level = upright.eyeLineDegrees(imageWidth: 512, imageHeight: 512)
    #expect(FaceSearch.angle(tilt, from: level + 25) < 5, "\(tilt) vs \(level)")
    #expect(FaceSearch.angle(tilt, from: seen.eyeLineDegrees(imageWidth: 512, imageHeight: 512)) < 6)
    let (seenX, faceX) = (seen.xmin + seen.width / 2, face.xmin + face.width / 2)
    let (seenY, faceY) = (seen.ymin + seen.height / 2, face.ymin + face.height / 2)
    #expect(abs(faceX - seenX) * 512 < 6 && abs(faceY - seenY) * 512 < 6)
    var aside = rect
    aside.xCenter += rect.width * 0.35
    if let guess = try short.look(image, rect: aside, minScore: 0, suppressionThreshold: 0.3) {
      #expect(guess.score < 0.5, "\(guess)")
    }
  }

  /// A candidate whose eye line is backwards (a pass saw the face upside down) turns a look
  /// upside down; looking both ways up finds the face as the right way up does, with its eye
  /// line the right way round.
  @Test func aLookBothWaysUpMendsABackwardsEyeLine() throws {
    let short = try DetectorGraph(model: ModelLoader.detectorModel(at: BundledModel.taskBundlePath))
    let astronaut = try Self.astronaut()
    let found = try #require(try short.detect(astronaut, minScore: 0.5, suppressionThreshold: 0.3).first)
    var backwards = found
    backwards.keypoints.swapAt(0, 1)
    backwards.keypoints.swapAt(4, 5)
    let rect = try #require(
      DetectorGraph.lookRect(around: found, scale: FaceSearch.lookScale, imageWidth: 512, imageHeight: 512))
    let flipped = try #require(
      DetectorGraph.lookRect(around: backwards, scale: FaceSearch.lookScale, imageWidth: 512, imageHeight: 512))
    #expect(abs(abs(FaceRects.normalizeRadians(flipped.rotation - rect.rotation)) - .pi) < 1e-4)
    let upright = try #require(try short.look(astronaut, rect: rect, minScore: 0.05, suppressionThreshold: 0.3))
    let upsideDown = try short.look(astronaut, rect: flipped, minScore: 0.05, suppressionThreshold: 0.3)
    #expect((upsideDown?.score ?? 0) < upright.score - 0.1, "\(String(describing: upsideDown)) vs \(upright)")
    for square in [rect, flipped] {
      let face = try #require(
        try short.lookBothWaysUp(astronaut, rect: square, minScore: 0.05, suppressionThreshold: 0.3))
      // Within 1e-4, not equal: the flipped square turned back by π is the upright one only to
      // rounding, and on arm64 (under qemu) that moved the score by 8e-6.
      #expect(abs(face.score - upright.score) < 1e-4, "\(face.score) vs \(upright.score)")
      #expect(abs(face.xmin - upright.xmin) < 1e-4 && abs(face.width - upright.width) < 1e-4)
      #expect(
        FaceSearch.angle(
          face.eyeLineDegrees(imageWidth: 512, imageHeight: 512),
          from: found.eyeLineDegrees(imageWidth: 512, imageHeight: 512)) < 5)
    }
  }

  /// An upright look is MediaPipe's detector on the square it reads, at the same threshold:
  /// cut that square out as an image of its own and the detector gives the same face, box
  /// and score, at thresholds where weaker boxes around the face would move it if averaged in.
  @Test func aLookIsTheDetectorOnItsSquareAtItsThreshold() throws {
    let short = try DetectorGraph(model: ModelLoader.detectorModel(at: BundledModel.taskBundlePath))
    let astronaut = try Self.astronaut()
    // A 320-pixel square at whole-pixel offsets holding the face off-centre by a few pixels.
    let (x0, y0, side) = (70, 0, 320)
    var cut = [UInt8](repeating: 0, count: side * side * 3)
    for y in 0..<side {
      for x in 0..<side {
        for c in 0..<3 { cut[(y * side + x) * 3 + c] = astronaut.pixels[((y0 + y) * 512 + x0 + x) * 3 + c] }
      }
    }
    let square = try MPImage(width: side, height: side, rgb: cut)
    let rect = NormalizedRect(
      xCenter: (Float(x0) + Float(side) / 2) / 512, yCenter: (Float(y0) + Float(side) / 2) / 512,
      width: Float(side) / 512, height: Float(side) / 512, rotation: 0)
    for threshold: Float in [0.05, 0.5] {
      let expected = try #require(
        try short.detect(square, minScore: threshold, suppressionThreshold: 0.3).first)
      let face = try #require(try short.look(astronaut, rect: rect, minScore: threshold, suppressionThreshold: 0.3))
      #expect(abs(face.score - expected.score) < 1e-4)
      let scale = Float(side) / 512
      for (a, b) in [
        (face.xmin, expected.xmin * scale + Float(x0) / 512), (face.ymin, expected.ymin * scale + Float(y0) / 512),
        (face.width, expected.width * scale), (face.height, expected.height * scale),
      ] {
        #expect(abs(a - b) * 512 < 0.05, "threshold \(threshold): \(face) vs \(expected)")
      }
    }
  }

  /// A face lying on its side in a non-square image, with all scales but no turns: a pass
  /// finds it only dimly, but the looks, turned by its eye line, see it upright and report it
  /// with its rotation.
  @Test func allScalesWithoutTurnsFindASidewaysFace() throws {
    let astronaut = try Self.astronaut()
    // The top 400 rows (the face is near the top), turned a quarter clockwise: 400×512.
    let (w, h) = (512, 400)
    var turned = [UInt8](repeating: 0, count: w * h * 3)
    for y in 0..<h {
      for x in 0..<w {
        let (tx, ty) = (h - 1 - y, x)
        for c in 0..<3 { turned[(ty * h + tx) * 3 + c] = astronaut.pixels[(y * w + x) * 3 + c] }
      }
    }
    let image = try MPImage(width: h, height: w, rgb: turned)
    let detector = try FaceDetector(options: Self.detectorOptions(anyRotation: false))
    let found = try detector.detect(image: image).detections
    let face = try #require(found.first)
    #expect(found.count == 1)
    let rotation = try #require(face.inPlaneRotation(imageWidth: h, imageHeight: w))
    #expect(abs(rotation - 90) < 10, "\(rotation)")
    // The upright face's centre (224, 129) turned with the pixels: (400 - 1 - 129, 224).
    #expect(abs(face.boundingBox.midX - 270) < 8 && abs(face.boundingBox.midY - 224) < 8, "\(face.boundingBox)")
  }

  /// A candidate with no area, or with coordinates that are not finite, gets no look (and
  /// so no error that would fail the whole image): the search drops it.
  @Test func aDegenerateCandidateHasNoLook() {
    let eyes = [SIMD2<Float>(0.4, 0.5), SIMD2<Float>(0.6, 0.5)]
    func rect(_ width: Float, _ height: Float, keypoints: [SIMD2<Float>] = eyes) -> NormalizedRect? {
      DetectorGraph.lookRect(
        around: RawDetection(score: 0.9, xmin: 0.4, ymin: 0.4, width: width, height: height, keypoints: keypoints),
        scale: FaceSearch.lookScale, imageWidth: 640, imageHeight: 480)
    }
    #expect(rect(0.2, 0.25) != nil)
    #expect(rect(0, 0) == nil)
    #expect(rect(.nan, 0.2) == nil)
    #expect(rect(.infinity, 0.2) == nil)
    #expect(rect(0.2, 0.25, keypoints: [SIMD2(.nan, 0.5), SIMD2(0.6, 0.5)]) == nil)
  }

  /// The committed crowd subset (Tools/make_crowd_fixtures.py): recall at IoU ≥ 0.5 on faces of
  /// at least 20 px and false positives over its five images, for all scales and any
  /// rotation at threshold 0.4. Measured with Benchmarks/crowd_recall.py on this subset: see
  /// docs/every-face.md.
  @Test func crowdSubsetRecallAndFalsePositives() throws {
    let (recall, falsePositives, detections) = try Self.crowdSubset(
      Self.detectorOptions(minDetectionConfidence: Self.allScalesThreshold))
    #expect(recall >= CrowdTruth.recallFloor)
    #expect(falsePositives <= CrowdTruth.falsePositivesCeiling)
    #expect(detections.allSatisfy { $0.facePresence == nil })
  }

  /// The landmark model's check (`minFacePresenceConfidence` 0.5) on the same subset: it only
  /// removes detections and every one it keeps carries its presence (measured with
  /// Benchmarks/crowd_recall.py --min-detection-confidence 0.4 --min-face-presence-confidence
  /// 0.5: 18 of 21 faces instead of 19, no false positive either way; the looks of the
  /// all-scales search leave it nothing to remove here, and it rejects a face they keep).
  @Test func presenceCheckOnlyRemovesDetections() throws {
    let options = Self.detectorOptions(minDetectionConfidence: Self.allScalesThreshold)
    let (_, unchecked, all) = try Self.crowdSubset(options)
    options.minFacePresenceConfidence = 0.5
    let (recall, falsePositives, kept) = try Self.crowdSubset(options)
    #expect(recall >= 0.7)
    #expect(falsePositives <= unchecked)
    #expect(kept.allSatisfy { ($0.facePresence ?? 0) >= 0.5 })
    let boxes = Set(all.map { "\($0.boundingBox)" })
    #expect(kept.allSatisfy { boxes.contains("\($0.boundingBox)") })
  }

  /// Recall at IoU ≥ 0.5 on the committed crowd subset's faces of at least 20 px, false
  /// positives per image, and every detection, for a detector with `options`.
  static func crowdSubset(_ options: FaceDetectorOptions) throws -> (
    recall: Double, falsePositives: Double, detections: [Detection]
  ) {
    let directory = Fixtures.fixturePath("crowd")
    let truth = try JSONDecoder().decode(
      CrowdTruth.self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/truth.json")))
    let detector = try FaceDetector(options: options)
    var found = 0
    var counted = 0
    var falsePositives = 0
    var detections: [Detection] = []
    for entry in truth.images {
      let image = try MPImage(contentsOfFile: directory + "/" + entry.file)
      let result = try detector.detect(image: image).detections
      detections += result
      let (matched, extra) = CrowdTruth.match(entry.faces, result.map(\.boundingBox))
      falsePositives += extra
      for (i, face) in entry.faces.enumerated() where face.size >= 20 {
        counted += 1
        if matched.contains(i) { found += 1 }
      }
    }
    let checked = options.minFacePresenceConfidence.map { ", presence check \($0)" } ?? ""
    print(
      "crowd subset\(checked): recall \(found)/\(counted), \(falsePositives) false positives in \(truth.images.count) images"
    )
    return (Double(found) / Double(counted), Double(falsePositives) / Double(truth.images.count), detections)
  }

  /// A real group photo (`Tests/Fixtures/crowd/group`: 38 faces of 16 to 34 px in 1317×342,
  /// truth from MediaPipe's own detector on 4× upscaled tiles, see Tools/make_crowd_fixtures.py):
  /// the short-range model on the whole photo, which is MediaPipe's detector, finds none of
  /// them; the all-scales search at threshold 0.4 finds nearly all (measured: 36 of 38, no
  /// other box).
  @Test func allScalesFindTheFacesOfARealGroupPhoto() throws {
    let directory = Fixtures.fixturePath("crowd/group")
    let truth = try JSONDecoder().decode(
      CrowdTruth.self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/truth.json")))
    let entry = try #require(truth.images.first)
    let image = try MPImage(contentsOfFile: directory + "/" + entry.file)
    let short = try FaceDetector(options: Self.detectorOptions(allScales: false, anyRotation: false))
    #expect(try short.detect(image: image).detections.isEmpty)
    let all = try FaceDetector(
      options: Self.detectorOptions(anyRotation: false, minDetectionConfidence: Self.allScalesThreshold))
    let boxes = try all.detect(image: image).detections.map(\.boundingBox)
    let (matched, extra) = CrowdTruth.match(entry.faces, boxes)
    print("group photo: \(matched.count)/\(entry.faces.count) faces, \(extra) other boxes")
    #expect(entry.faces.count == 38)
    #expect(matched.count >= 35, "\(matched.count) of \(entry.faces.count)")
    #expect(extra <= 2)
  }

  // MARK: Bounds

  /// A search too large for the work limit is refused before any model runs, with a message
  /// that says what to do; the same image upright plans within it, as does a 12 MP photo
  /// with any rotation (8,204 runs).
  @Test func aSearchTooLargeIsRefusedAtOnce() throws {
    let detector = try FaceDetector(options: Self.detectorOptions())
    let huge = try MPImage(width: 8192, height: 6144, rgb: [UInt8](repeating: 90, count: 8192 * 6144 * 3))
    let start = Date()
    #expect {
      try detector.detect(image: huge)
    } throws: {
      "\($0)".contains("over the limit of \(BaseOptions.defaultMaximumSearchRuns)")
        && "\($0)".contains("search upright only")
    }
    #expect(Date().timeIntervalSince(start) < 5, "refused before the passes")
    let planned = { (w: Int, h: Int, turns: Int) in
      turns
        * (2 + SearchTile.tiles(imageWidth: w, imageHeight: h).count
          + SearchTile.smallFaceTiles(imageWidth: w, imageHeight: h).count)
    }
    #expect(
      planned(8192, 6144, 4) > BaseOptions.defaultMaximumSearchRuns
        && planned(8192, 6144, 1) <= BaseOptions.defaultMaximumSearchRuns)
    #expect(planned(4000, 3000, 4) == 8_204)
  }

  /// `BaseOptions.maximumSearchRuns` sets that limit for every task that searches (a server
  /// sets less than the default): the detector, the landmarker and the accurate analyzer each
  /// refuse an image over it before any run, name the limit, and take one within it; a limit
  /// under 6 is refused.
  @Test func theSearchLimitIsAnOption() throws {
    let image = try MPImage(width: 2000, height: 1500, rgb: [UInt8](repeating: 90, count: 2000 * 1500 * 3))
    let planned =
      2 + SearchTile.tiles(imageWidth: 2000, imageHeight: 1500).count
      + SearchTile.smallFaceTiles(imageWidth: 2000, imageHeight: 1500).count
    let limit = planned - 1
    let detectorOptions = Self.detectorOptions(anyRotation: false)
    detectorOptions.baseOptions.maximumSearchRuns = limit
    let landmarkerOptions = FaceLandmarkerOptions(
      baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath, maximumSearchRuns: limit))
    landmarkerOptions.searchesAllScales = true
    landmarkerOptions.fullRangeDetectorModelAssetPath = FullRangeTests.fullRangePath
    let analyzerOptions = FaceAnalyzerOptions(
      baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath, maximumSearchRuns: limit))
    analyzerOptions.performanceMode = .accurate
    analyzerOptions.fullRangeDetectorModelAssetPath = FullRangeTests.fullRangePath
    let refusal = "needs \(planned) model runs to search at every scale, over the limit of \(limit)"
    let start = Date()
    #expect { try FaceDetector(options: detectorOptions).detect(image: image) } throws: { "\($0)".contains(refusal) }
    #expect { try FaceLandmarker(options: landmarkerOptions).detect(image: image) } throws: {
      "\($0)".contains(refusal)
    }
    #expect { try FaceAnalyzer(options: analyzerOptions).analyze(image: image) } throws: { "\($0)".contains(refusal) }
    #expect(Date().timeIntervalSince(start) < 10, "refused before the passes")
    detectorOptions.baseOptions.maximumSearchRuns = planned
    #expect(try FaceDetector(options: detectorOptions).detect(image: image).detections.isEmpty)
    #expect(throws: VisionTaskError.invalidOption("invalid `maximumSearchRuns` option: must be at least 6, got 5")) {
      try BaseOptions(maximumSearchRuns: 5).validate()
    }
  }

  /// The work per face is bounded by a sixth of the limit: with a threshold of 0, the
  /// detections to check for presence and the faces to landmark on a photo run into the
  /// hundreds, and are refused, naming the limit, instead of each costing a model run.
  @Test func theWorkPerFaceIsBounded() throws {
    let photo = try Self.astronaut()
    let detectorOptions = Self.detectorOptions(allScales: false, anyRotation: true, minDetectionConfidence: 0)
    detectorOptions.minFacePresenceConfidence = 0
    detectorOptions.baseOptions.maximumSearchRuns = 60
    #expect { try FaceDetector(options: detectorOptions).detect(image: photo) } throws: {
      "\($0)".contains("detections to check for presence, over the limit of 10")
    }
    let landmarkerOptions = FaceLandmarkerOptions(
      baseOptions: BaseOptions(modelAssetPath: BundledModel.taskBundlePath, maximumSearchRuns: 60), numFaces: 20,
      minFaceDetectionConfidence: 0)
    #expect { try FaceLandmarker(options: landmarkerOptions).detect(image: photo) } throws: {
      "\($0)".contains("faces to landmark, over the limit of 10")
    }
    // Within the limit, the same calls answer.
    landmarkerOptions.numFaces = 10
    #expect(try FaceLandmarker(options: landmarkerOptions).detect(image: photo).faceLandmarks.count <= 10)
  }

  /// A Swift task running a search can cancel it: the search stops at its next phase with
  /// `VisionTaskError.cancelled`.
  @Test func aCancelledTaskStopsTheSearch() async throws {
    let detector = try FaceDetector(options: Self.detectorOptions())
    let image = try Self.astronaut()
    let task = Task { () throws -> Int in
      withUnsafeCurrentTask { $0?.cancel() }
      return try detector.detect(image: image).detections.count
    }
    await #expect(throws: VisionTaskError.cancelled) { try await task.value }
    // The detector is unharmed: the next search runs to the end.
    #expect(try detector.detect(image: image).detections.count == 1)
  }

  /// The progress a search reports (`visage detect`'s progress line): every phase of the
  /// profile, in order, as it starts, and within a phase after every chunk of tiles, with the
  /// runs so far never decreasing; the looks' plan is the runs before them and two a
  /// candidate. The result is the same as without a handler.
  @Test func aSearchReportsItsProgress() throws {
    let detector = try FaceDetector(options: Self.detectorOptions(minDetectionConfidence: Self.allScalesThreshold))
    let image = try MPImage(contentsOfFile: Fixtures.fixturePath("crowd/crowd_00.jpg"))
    let quiet = try detector.detect(image: image).detections
    let seen = ProgressLog()
    detector.reportSearchProgress(to: seen.append)
    let result = try detector.detect(image: image)
    #expect(result.detections == quiet)
    let profile = try #require(result.searchProfile)
    let reports = seen.reports
    let phases = reports.map(\.phase).enumerated().filter {
      $0.offset == 0 || reports[$0.offset - 1].phase != $0.element
    }
    #expect(phases.map(\.element) == profile.phases.map(\.name))
    // 1280x960: 180 small tiles a turn, so three reports within each small-tile phase.
    #expect(
      reports.filter { $0.phase == "small tiles 0°" }.count == 1 + (180 + FaceSearch.progressChunk - 1)
        / FaceSearch.progressChunk)
    #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.runs <= $1.runs && $0.seconds <= $1.seconds })
    let looks = try #require(reports.first { $0.phase == "looks" })
    #expect(looks.runs == profile.phases.dropLast().reduce(0) { $0 + $1.inferences })
    #expect(looks.plannedRuns == looks.runs + 2 * profile.candidates)
    detector.reportSearchProgress(to: nil)
    _ = try detector.detect(image: Self.astronaut())
    #expect(seen.reports.count == reports.count, "no calls once the handler is removed")
  }
}

/// Progress reports collected from the searching thread.
final class ProgressLog: @unchecked Sendable {
  private let lock = NSLock()
  private var items: [SearchProgress] = []
  var reports: [SearchProgress] { lock.withLock { items } }
  func append(_ progress: SearchProgress) { lock.withLock { items.append(progress) } }
}

/// `Tests/Fixtures/crowd/truth.json`: each image's faces as pasted, boxes in pixels.
struct CrowdTruth: Decodable {
  struct Face: Decodable { var x: Double, y: Double, size: Double, turn: Int }
  struct Image: Decodable { var file: String, faces: [Face] }
  var images: [Image]

  /// The bars the subset must clear, a little below what it measures at threshold 0.4 (19 of
  /// 21 faces, no false positive in its five images; see the test).
  static let recallFloor = 0.85
  static let falsePositivesCeiling = 0.2

  /// Faces matched by a box with IoU ≥ 0.5 (best overlaps first, one box per face) and the
  /// number of boxes that match none, as Benchmarks/crowd_recall.py counts them.
  static func match(_ faces: [Face], _ boxes: [CGRect]) -> (Set<Int>, Int) {
    var pairs: [(Double, Int, Int)] = []
    for (i, f) in faces.enumerated() {
      let truth = CGRect(x: f.x, y: f.y, width: f.size, height: f.size)
      for (j, b) in boxes.enumerated() {
        let overlap = truth.intersection(b)
        guard !overlap.isNull, overlap.width > 0, overlap.height > 0 else { continue }
        let inter = Double(overlap.width * overlap.height)
        pairs.append((inter / (Double(truth.width * truth.height + b.width * b.height) - inter), i, j))
      }
    }
    var found = Set<Int>()
    var used = Set<Int>()
    for (overlap, i, j) in pairs.sorted(by: { $0.0 > $1.0 })
    where overlap >= 0.5 && !found.contains(i) && !used.contains(j) {
      found.insert(i)
      used.insert(j)
    }
    return (found, boxes.count - used.count)
  }
}
