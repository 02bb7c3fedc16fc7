import Foundation
import VisageKernels

/// Where the detector models look for faces: MediaPipe's one model on the upright image, or
/// Visage's wider search over scales, tiles and quarter turns.
///
/// Not thread-safe: it owns the detectors' interpreters, so callers serialise use.
final class FaceSearch {
  /// The model that runs on the whole image (the short-range one in an all-scales search).
  let primary: DetectorGraph
  /// In an all-scales search, the full-range model, run on the whole image and on tiles.
  private let fullRange: DetectorGraph?
  /// Whether the image is also searched turned by 90°, 180° and 270°.
  private let anyRotation: Bool
  /// The face landmark model that checks every detection, and the face presence a
  /// detection needs to be kept; nil when nothing is checked.
  private let verifier: (landmarks: LandmarkGraph, minPresence: Float)?
  /// Copies of the two detectors, one pair per thread of `pool`, that share out an all-scales
  /// search's tiles and looks; nil to run them one by one with `primary` and `fullRange`.
  private let crew: (pairs: [DetectorPair], pool: ThreadPool)?
  /// The most model runs a wider search's passes may plan (`BaseOptions.maximumSearchRuns`).
  private let maximumRuns: Int
  /// Called as a wider search goes (`SearchProgress`), on the searching thread.
  var progress: (@Sendable (SearchProgress) -> Void)?

  /// A short-range and a full-range detector, for one thread's tiles and looks.
  struct DetectorPair {
    var primary: DetectorGraph
    var fullRange: DetectorGraph
  }

  init(
    primary: DetectorGraph, fullRange: DetectorGraph? = nil, anyRotation: Bool = false,
    verifier: (landmarks: LandmarkGraph, minPresence: Float)? = nil,
    crew: (pairs: [DetectorPair], pool: ThreadPool)? = nil, maximumRuns: Int = BaseOptions.defaultMaximumSearchRuns
  ) {
    self.maximumRuns = maximumRuns
    self.primary = primary
    self.fullRange = fullRange
    self.anyRotation = anyRotation
    self.verifier = verifier
    self.crew = crew
  }

  /// Whether this is MediaPipe's search: one model, whole image, upright only (with or
  /// without the check of `verifier`, which only removes detections).
  var isSingleModel: Bool { fullRange == nil && !anyRotation }

  /// The faces in `image`: normalized coordinates of the stored image, best first.
  ///
  /// The single-model search is MediaPipe's graph unchanged. A wider one collects every
  /// pass's candidates (each model on the whole image, the full-range model on every tile,
  /// the short-range model on every small tile, at each turn), maps them back to the image,
  /// and suppresses them all in one weighted non-maximum suppression, so a face seen by
  /// several passes is one face whose box and keypoints are the score-weighted mean of what
  /// they saw. An all-scales search instead
  /// gathers candidates that way from a low score, and reports the faces the short-range
  /// model's three looks confirm, with the looks' boxes and keypoints (`confirm`). With a
  /// `verifier`, the faces either search finds are then checked by the landmark model, and
  /// those it does not see as faces are dropped. A wider search returns where its time went
  /// too (`profile`, nil for the single model).
  func detect(_ image: MPImage, minScore: Float, suppressionThreshold: Float) throws(VisionTaskError)
    -> (faces: [RawDetection], profile: SearchProfile?)
  {
    var profile: SearchProfile?
    let found = try search(image, minScore: minScore, suppressionThreshold: suppressionThreshold, profile: &profile)
    guard let verifier else { return (found, profile) }
    // One landmark model run a detection: bounded as the looks are (a threshold of 0 with any
    // rotation gives thousands of detections on any picture).
    guard found.count <= maximumCandidates else {
      throw .invalidImage(
        "\(found.count) detections to check for presence, over the limit of \(maximumCandidates) "
          + "(a sixth of maximumSearchRuns); raise the detection confidence")
    }
    // Each face's region as the landmarker builds it (turned by its eye line, so a face
    // found sideways is checked upright), and the model's presence there.
    var kept: [RawDetection] = []
    for var detection in found {
      let region = FaceRects.region(for: detection, imageWidth: image.width, imageHeight: image.height)
      let presence = try verifier.landmarks.presence(image, rect: region)
      guard presence >= verifier.minPresence else { continue }
      detection.presence = presence
      kept.append(detection)
    }
    return (kept, profile)
  }

  /// The detections of the search itself, before any check; a wider search sets `finalProfile`.
  private func search(
    _ image: MPImage, minScore: Float, suppressionThreshold: Float, profile finalProfile: inout SearchProfile?
  ) throws(VisionTaskError) -> [RawDetection] {
    if isSingleModel {
      return try primary.detect(image, minScore: minScore, suppressionThreshold: suppressionThreshold)
    }
    let (w, h) = (image.width, image.height)
    let upright = try image.rotationDegrees()
    let tiles = fullRange == nil ? [] : SearchTile.tiles(imageWidth: w, imageHeight: h)
    let smallFaceTiles = fullRange == nil ? [] : SearchTile.smallFaceTiles(imageWidth: w, imageHeight: h)
    // Refused before any work, so that a huge image cannot hold a caller for minutes.
    let planned = (anyRotation ? 4 : 1) * (2 + tiles.count + smallFaceTiles.count)
    guard planned <= maximumRuns else {
      throw .invalidImage(
        "a \(w)x\(h) image needs \(planned) model runs to search at every scale\(anyRotation ? " and turn" : ""), "
          + "over the limit of \(maximumRuns); scale it down\(anyRotation ? " or search upright only" : "")")
    }
    // An all-scales search finds candidates for the looks; the others report what they find.
    // Candidates and looks both stop at `DetectorGraph.lookMinScore`, however low `minScore`
    // is, so that a threshold of 0 does not make every anchor of every tile a candidate.
    let passScore =
      fullRange == nil ? minScore : max(DetectorGraph.lookMinScore, min(minScore, Self.candidateScore))
    // The detectors that read the tiles and look at the candidates when there is no crew.
    let solo = fullRange.map { DetectorPair(primary: primary, fullRange: $0) }
    var profile = SearchProfile()
    let timesBefore = inferenceTimes()
    let searchStart = monotonicSeconds()
    var plannedRuns = planned
    var phaseName = ""
    /// Tells `progress`, if set, where the search is: at each phase's start and, within the
    /// long phases, after every `progressChunk` tiles or candidates.
    func report() {
      guard let progress else { return }
      progress(
        SearchProgress(
          phase: phaseName, runs: inferenceTimes().runs - timesBefore.runs, plannedRuns: plannedRuns,
          seconds: monotonicSeconds() - searchStart))
    }
    let tick: (() -> Void)? = progress == nil ? nil : report
    /// `body`, timed into the profile under `name` with the model runs it made.
    func phase<T>(_ name: String, _ body: () throws(VisionTaskError) -> T) throws(VisionTaskError) -> T {
      // A Swift task that runs the search may cancel it: checked between its phases.
      if Task.isCancelled { throw .cancelled }
      let (start, runs) = (monotonicSeconds(), inferenceTimes().runs)
      phaseName = name
      report()
      let result = try body()
      profile.phases.append(
        .init(name: name, seconds: monotonicSeconds() - start, inferences: inferenceTimes().runs - runs))
      return result
    }
    var found: [RawDetection] = []
    for turn in anyRotation ? [0, 90, 180, 270] : [0] {
      let degrees = upright + turn
      let whole = NormalizedRect.wholeImage(rotationDegrees: degrees, imageWidth: w, imageHeight: h)
      var pass = try phase("short whole \(turn)°") { () throws(VisionTaskError) in
        try primary.candidates(image, rect: whole, minScore: passScore)
      }
      if let solo {
        pass += try phase("full whole \(turn)°") { () throws(VisionTaskError) in
          try solo.fullRange.candidates(image, rect: whole, minScore: passScore)
        }
        pass += try phase("full tiles \(turn)°") { () throws(VisionTaskError) in
          try shared(tiles.count, solo: solo, tick: tick) { (pair, share) throws(VisionTaskError) in
            try pair.fullRange.candidates(image, tiles: tiles[share], rotationDegrees: degrees, minScore: passScore)
          }
        }
        pass += try phase("small tiles \(turn)°") { () throws(VisionTaskError) in
          try shared(smallFaceTiles.count, solo: solo, tick: tick) { (pair, share) throws(VisionTaskError) in
            try pair.primary.candidates(
              image, tiles: smallFaceTiles[share], rotationDegrees: degrees, minScore: Self.smallFaceCandidateScore)
          }
        }
      }
      if anyRotation {
        // A turn finds a face it sees about upright; one it sees lying more than 50° over
        // (found by a neighbouring turn too) comes with keypoints the model guessed, which
        // would pull the merged face's keypoints off, and is most often not a face at all.
        pass.removeAll { Self.angle($0.eyeLineDegrees(imageWidth: w, imageHeight: h), from: Double(-degrees)) > 50 }
      }
      found += pass
    }
    defer {
      profile.inference = inferenceTimes() - timesBefore
      finalProfile = profile
    }
    guard let solo else {
      return try phase("suppression") { NonMaxSuppression.weighted(found, threshold: suppressionThreshold) }
    }
    // From the low candidate score, odd boxes are likelier; one with no area, on top of the
    // suppression, would match nothing (not even itself) and end it early.
    let suppressed = try phase("suppression") {
      NonMaxSuppression.weighted(found.filter(\.hasArea), threshold: suppressionThreshold)
    }
    profile.candidates = suppressed.count
    // The looks' share is bounded too: the best candidates first, at most this many. (A
    // 4000x3000 crowd photo with any rotation has about 2,000.)
    let looked =
      suppressed.count <= maximumCandidates
      ? suppressed : Array(suppressed.sorted { $0.score > $1.score }.prefix(maximumCandidates))
    plannedRuns = inferenceTimes().runs - timesBefore.runs + 2 * looked.count
    let confirmed = try phase("looks") { () throws(VisionTaskError) in try confirmFaces() }
    profile.confirmed = confirmed.count
    return NonMaxSuppression.weighted(confirmed, threshold: suppressionThreshold)

    func confirmFaces() throws(VisionTaskError) -> [RawDetection] {
      try shared(looked.count, solo: solo, tick: tick) { (pair, share) throws(VisionTaskError) in
        var faces: [RawDetection] = []
        for candidate in looked[share] {
          if let face = try confirm(
            candidate, in: image, with: pair.primary, minScore: minScore, suppressionThreshold: suppressionThreshold),
            face.score >= minScore
          {
            faces.append(face)
          }
        }
        return faces
      }
    }
  }

  /// Every detector's run times so far, summed over the crew's copies too.
  private func inferenceTimes() -> InferenceTimes {
    var total = primary.times + (fullRange?.times ?? InferenceTimes())
    for pair in crew?.pairs ?? [] { total = total + pair.primary.times + pair.fullRange.times }
    return total
  }

  /// `work` over the items `0..<count`, its results in item order, as `sharedAll` does; with
  /// a `tick`, in chunks of `progressChunk` items with a tick after each (the same items, in
  /// the same order, so the same results).
  private func shared<T>(
    _ count: Int, solo: DetectorPair, tick: (() -> Void)?,
    _ work: (DetectorPair, Range<Int>) throws(VisionTaskError) -> [T]
  ) throws(VisionTaskError) -> [T] {
    guard let tick, count > Self.progressChunk else { return try sharedAll(count, solo: solo, work) }
    var results: [T] = []
    for start in stride(from: 0, to: count, by: Self.progressChunk) {
      let end = min(count, start + Self.progressChunk)
      results += try sharedAll(end - start, solo: solo) { (pair, share) throws(VisionTaskError) in
        try work(pair, (start + share.lowerBound)..<(start + share.upperBound))
      }
      tick()
    }
    return results
  }

  /// Tiles or candidates between two progress reports: about a twentieth of a second of
  /// model runs here for tiles, a tenth to a quarter for candidates (two to four runs each).
  static let progressChunk = 64

  /// `work` over the items `0..<count`, its results in item order: with a crew, each
  /// detector pair takes a run of neighbouring items on a thread of its own; without, `solo`
  /// takes them all. Either way the same models see the same pixels, so the results are the
  /// same.
  private func sharedAll<T>(
    _ count: Int, solo: DetectorPair, _ work: (DetectorPair, Range<Int>) throws(VisionTaskError) -> [T]
  ) throws(VisionTaskError) -> [T] {
    guard let (pairs, pool) = crew, count > 1 else { return try work(solo, 0..<count) }
    let n = min(pairs.count, count)
    var shares = [Result<[T], VisionTaskError>](repeating: .success([]), count: n)
    withoutActuallyEscaping(work) { work in
      shares.withUnsafeMutableBufferPointer { buffer in
        let out = buffer
        pool.run(n) { i in
          out[i] = Result { () throws(VisionTaskError) in try work(pairs[i], i * count / n..<(i + 1) * count / n) }
        }
      }
    }
    var results: [T] = []
    for share in shares { results += try share.get() }
    return results
  }

  /// The most candidates of one all-scales search that get looked at, the best first: each
  /// costs two to four model runs, so a sixth of `maximumRuns` bounds the looks at two
  /// thirds of it (5,000 by default: a 4000x3000 crowd photo with any rotation has about
  /// 2,000). With the default 30,000 (about 30 s of runs on one core of this project's
  /// machine, 0.94 ms a run), images above about 46 megapixels with any rotation, or about
  /// 180 upright, are refused.
  var maximumCandidates: Int { BaseOptions.maximumFacesWorkedOn(searchRuns: maximumRuns) }

  /// The score a candidate of an all-scales search needs to be looked at: low, since the
  /// looks decide, and a face the passes see only dimly (small, tilted, cut by tiles) still
  /// gets its look.
  static let candidateScore: Float = 0.1

  /// The score a candidate from the short-range model's small tiles needs: higher than
  /// `candidateScore`, so that fewer of the many tiles' weak guesses each cost a look. (0.3 is
  /// the one value measured, on the four crowd sets of `Benchmarks/crowd_recall.py`: with it
  /// the tiles took `all` with any rotation from 96.7/93.7/94.9/93.6% to 98.0/95.0/94.9/95.7%,
  /// at one more false positive in 96 images; see docs/every-face.md.)
  static let smallFaceCandidateScore: Float = 0.3

  /// How far a look stands back from a candidate: its side in face widths, so the face is a
  /// quarter of the short-range model's input wide, the middle of the sizes it finds well.
  static let lookScale: Float = 4

  /// The side, in face widths, of the last look, which frames the face closer (a third of
  /// the input wide) than the first two: a differently framed view of a face agrees with them
  /// more often than one of face-like texture does.
  static let closeLookScale: Float = 3

  /// A candidate as three looks of the short-range model see it: the first at the
  /// candidate's box and eye line, both ways up, the second at the face the first found (now
  /// centred, upright, at the right size), the third closer in on that face. The face is the
  /// second look's, scored by the product of the three looks' scores, the chance they all
  /// agree it is a face; nil when a look finds none or the product falls below `minScore`.
  private func confirm(
    _ candidate: RawDetection, in image: MPImage, with primary: DetectorGraph, minScore: Float,
    suppressionThreshold: Float
  ) throws(VisionTaskError) -> RawDetection? {
    let (w, h) = (image.width, image.height)
    func look(around detection: RawDetection, scale: Float, bothWaysUp: Bool) throws(VisionTaskError)
      -> RawDetection?
    {
      guard let rect = DetectorGraph.lookRect(around: detection, scale: scale, imageWidth: w, imageHeight: h)
      else { return nil }
      return bothWaysUp
        ? try primary.lookBothWaysUp(image, rect: rect, minScore: minScore, suppressionThreshold: suppressionThreshold)
        : try primary.look(image, rect: rect, minScore: minScore, suppressionThreshold: suppressionThreshold)
    }
    // A product of scores in 0...1 is at most any of them, so a face that can be reported has
    // every look at `minScore` or above: each look keeps only such detections (its box is not
    // pulled by weaker ones), and once the product so far is below it the face is lost
    // whatever the next look says (most candidates end after the first).
    // Only the first look reads both ways up: its face has the eye line of the way up it
    // scored best, which the later looks follow. (Both ways up again, they took 3-32% longer
    // and let through false positives, face-like texture read upside down: docs/every-face.md.)
    guard let first = try look(around: candidate, scale: Self.lookScale, bothWaysUp: true), first.score >= minScore
    else { return nil }
    guard var face = try look(around: first, scale: Self.lookScale, bothWaysUp: false) else { return nil }
    face.score *= first.score
    guard face.score >= minScore,
      let closer = try look(around: face, scale: Self.closeLookScale, bothWaysUp: false)
    else { return nil }
    face.score *= closer.score
    return face
  }

  /// The unsigned difference of two angles in degrees, in 0...180.
  static func angle(_ a: Double, from b: Double) -> Double {
    let d = (a - b).truncatingRemainder(dividingBy: 360)
    return min(abs(d), 360 - abs(d))
  }
}

extension RawDetection {
  /// The eye line's direction (keypoints 0 → 1) in degrees clockwise on screen, in pixels:
  /// 0 for an upright face, 180 for one upside down.
  func eyeLineDegrees(imageWidth: Int, imageHeight: Int) -> Double {
    Visage.eyeLineDegrees(
      dx: Double(keypoints[1].x - keypoints[0].x) * Double(imageWidth),
      dy: Double(keypoints[1].y - keypoints[0].y) * Double(imageHeight))
  }
}
