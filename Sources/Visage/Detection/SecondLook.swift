/// A closer look at one candidate face: the short-range model run on a square around it,
/// turned so the face is upright and scaled so it is a quarter of the model's input wide.
///
/// A model scores a face far more surely centred, upright and at the size it was trained on
/// than wherever the face happens to fall in a tile, tilted and small: a look tells faces from
/// face-like texture that a search pass scored alike, and gives a better box.
extension DetectorGraph {
  /// The square a look reads around `detection` (normalized coordinates of an image of the
  /// given size): centred on its box, `scale` times its mean side in pixels, turned by its
  /// eye line as the landmarker's region is. Nil for a detection with no area or with
  /// coordinates that are not finite (a model may decode such boxes), which has no look.
  static func lookRect(around detection: RawDetection, scale: Float, imageWidth: Int, imageHeight: Int)
    -> NormalizedRect?
  {
    let rotation = FaceRects.rotation(
      from: detection.keypoints[0], to: detection.keypoints[1], imageWidth: imageWidth, imageHeight: imageHeight)
    guard detection.hasArea, rotation.isFinite else { return nil }
    let (w, h) = (Float(imageWidth), Float(imageHeight))
    let side = scale * (detection.width * w + detection.height * h) / 2
    return NormalizedRect(
      xCenter: detection.xmin + detection.width / 2, yCenter: detection.ymin + detection.height / 2,
      width: side / w, height: side / h, rotation: rotation)
  }

  /// The best face the model finds with its centre in the middle half of `rect` (which must
  /// be square in pixels), in normalized image coordinates; nil when there is none.
  ///
  /// Only detections scored `minScore` or more (and at least `lookMinScore`) are suppressed
  /// into it, as MediaPipe's detector at that threshold would: weaker boxes overlapping the
  /// face, often larger ones taking in its surroundings, would pull its box off the face.
  ///
  /// The box keeps the size the model gave it: a turned look's box is mapped back by its
  /// centre, not as the bounds of its turned corners, which would grow it by up to 41%
  /// (its width is along the face's eye line, as `FaceRects.region` reads a box; BlazeFace's
  /// boxes are near square, so a face lying sideways is not stretched by that).
  func look(_ image: MPImage, rect: NormalizedRect, minScore: Float, suppressionThreshold: Float)
    throws(VisionTaskError) -> RawDetection?
  {
    let (raw, matrix) = try run(image, rect: rect, minScore: max(Self.lookMinScore, minScore))
    let central = NonMaxSuppression.weighted(raw.filter(\.hasArea), threshold: suppressionThreshold).filter {
      abs($0.xmin + $0.width / 2 - 0.5) < 0.25 && abs($0.ymin + $0.height / 2 - 0.5) < 0.25
    }
    guard let best = central.max(by: { $0.score < $1.score }) else { return nil }
    let centre = matrix.apply(SIMD2(best.xmin + best.width / 2, best.ymin + best.height / 2))
    let (width, height) = (best.width * rect.width, best.height * rect.height)
    return RawDetection(
      score: best.score, xmin: centre.x - width / 2, ymin: centre.y - height / 2, width: width, height: height,
      keypoints: best.keypoints.map(matrix.apply))
  }

  /// `look` at `rect` as given and turned half a turn, whichever finds the better face.
  ///
  /// A search pass that sees a small face upside down (as it may when the face is upside
  /// down in the turn it searched) gives its keypoints, so its eye line, backwards; a look
  /// turned by that line would see the face upside down, scored and placed far worse.
  func lookBothWaysUp(_ image: MPImage, rect: NormalizedRect, minScore: Float, suppressionThreshold: Float)
    throws(VisionTaskError) -> RawDetection?
  {
    var turned = rect
    turned.rotation = FaceRects.normalizeRadians(rect.rotation + .pi)
    var best: RawDetection?
    for square in [rect, turned] {
      let face = try look(image, rect: square, minScore: minScore, suppressionThreshold: suppressionThreshold)
      if let face, face.score > best?.score ?? 0 { best = face }
    }
    return best
  }

  /// Scores below this are not faces to a look (far below any threshold a caller would use).
  static let lookMinScore: Float = 0.05
}

extension RawDetection {
  /// Whether the box has finite coordinates and a positive width and height.
  var hasArea: Bool {
    [xmin, ymin, width, height].allSatisfy(\.isFinite) && width > 0 && height > 0
  }
}
