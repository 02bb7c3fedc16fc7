/// The face landmarker's per-frame work and its state between frames: MediaPipe's
/// `FaceLandmarkerGraph` (detector, association, landmarks, presence, smoothing,
/// blendshapes).
///
/// Not thread-safe: the task that owns it (`FaceLandmarker` or `FaceAnalyzer`) serialises use
/// through its `TaskRunner`.
final class LandmarkerPipeline {
  /// One face of one image or frame: what `FaceLandmarker` turns into its public result and
  /// `FaceAnalyzer` into ML Kit's faces. Unlike the public result, it keeps each face's own
  /// matrix (or its absence) beside its landmarks.
  struct Face {
    /// 478 landmarks, normalized to the stored image; smoothed in a stream.
    var landmarks: [SIMD3<Float>]
    /// The model's landmarks before smoothing (the same as `landmarks` when nothing smooths).
    var rawLandmarks: [SIMD3<Float>]
    /// The 52 raw blendshape scores, when asked for.
    var blendshapes: [Float]?
    /// Nil when not asked for, or when MediaPipe's geometry stage skips the face.
    var transformationMatrix: Matrix4x4?
    /// The metric mesh (468 vertices, centimetres), when asked for; nil as the matrix is.
    var metricMesh: [SIMD3<Float>]?
    /// The detection the face was found from; nil for a face followed from the last frame.
    var detection: RawDetection?
    /// The landmark model's face presence for the face.
    var presence: Float
  }

  private let detector: FaceSearch
  private let landmarks: LandmarkGraph
  private let blendshapes: BlendshapeGraph?
  private let geometry: FaceGeometry?
  private let options: FaceLandmarkerOptions

  /// What a stream carries from one frame to the next.
  struct Tracking {
    /// The regions the previous frame's faces gave for this frame.
    var regions: [NormalizedRect] = []
    /// One smoother per face being followed, with the region it was last seen in.
    var smoothers: [(region: NormalizedRect, smoother: LandmarkSmoother)] = []
  }

  /// Stream mode: the state the previous frame left; empty for a still image or a new video.
  var tracking = Tracking()

  init(
    detector: FaceSearch, landmarks: LandmarkGraph, blendshapes: BlendshapeGraph?, geometry: FaceGeometry?,
    options: FaceLandmarkerOptions
  ) {
    self.detector = detector
    self.landmarks = landmarks
    self.blendshapes = blendshapes
    self.geometry = geometry
    self.options = options
  }

  /// Forgets every tracked face and filter, as if the next frame began a new video.
  func reset() {
    tracking = Tracking()
  }

  /// One image (`timestamp` nil) or one frame of a stream; with `given` regions, a still
  /// image's faces in those regions, with no detection.
  func process(_ image: MPImage, timestamp: Int?, given: [NormalizedRect]? = nil) throws(VisionTaskError) -> [Face] {
    let (w, h) = (image.width, image.height)
    let streaming = timestamp != nil
    // Each region with the detection it came from (none for a followed or given face).
    var regions: [(rect: NormalizedRect, detection: RawDetection?)]
    if let given {
      regions = given.map { ($0, nil) }
    } else if streaming && tracking.regions.count >= options.numFaces {
      // Enough faces are tracked: the detector does not run.
      regions = tracking.regions.map { ($0, nil) }
    } else {
      // Inside the landmarker MediaPipe leaves suppression at its graph default, 0.5.
      let found = try detector.detect(image, minScore: options.minFaceDetectionConfidence, suppressionThreshold: 0.5)
        .faces
      let detected = found.prefix(options.numFaces).map {
        (rect: FaceRects.region(for: $0, imageWidth: w, imageHeight: h), detection: Optional($0))
      }
      regions =
        streaming
        ? Self.associate(tracking.regions.map { ($0, nil) } + detected, threshold: options.minTrackingConfidence)
        : Array(detected)
    }
    if given == nil { regions = Array(regions.prefix(options.numFaces)) }
    // A landmark model run or more a face: bounded as a wide search's looks are.
    let faceLimit = BaseOptions.maximumFacesWorkedOn(searchRuns: options.baseOptions.maximumSearchRuns)
    guard regions.count <= faceLimit else {
      throw .invalidImage(
        "\(regions.count) faces to landmark, over the limit of \(faceLimit) (a sixth of maximumSearchRuns); "
          + "ask for fewer faces (numFaces) or raise the detection confidence")
    }

    var faces: [(landmarks: [SIMD3<Float>], region: NormalizedRect, detection: RawDetection?, presence: Float)] = []
    var next: [NormalizedRect] = []
    for (region, detection) in regions {
      let out = try landmarks.run(image, rect: region)
      // The test is strict, on doubles, as MediaPipe's ThresholdingCalculator does it.
      guard Double(out.presence) > Double(options.minFacePresenceConfidence) else { continue }
      faces.append((out.landmarks, region, detection, out.presence))
      if streaming { next.append(FaceRects.region(forLandmarks: out.landmarks, imageWidth: w, imageHeight: h)) }
    }
    if streaming { tracking.regions = next }

    var smoothed = faces.map(\.landmarks)
    if let timestamp {
      smoothed = smooth(faces.map { ($0.landmarks, $0.region) }, timestamp: timestamp, width: w, height: h)
    }
    // MediaPipe's camera unless the options give another.
    let fov = options.verticalFieldOfView(for: image)
    let camera: Float? = fov == GeometryEnvironment.faceLandmarker.verticalFOVDegrees ? nil : fov
    return zip(smoothed, faces).map { points, face in
      var matrix: Matrix4x4?
      var mesh: [SIMD3<Float>]?
      if let geometry, options.outputFaceMetricLandmarks {
        (matrix, mesh) =
          geometry.geometry(landmarks: points, imageWidth: w, imageHeight: h, verticalFOVDegrees: camera)
          .map { ($0.matrix, $0.mesh) } ?? (nil, nil)
      } else {
        matrix = geometry?.transformationMatrix(
          landmarks: points, imageWidth: w, imageHeight: h, verticalFOVDegrees: camera)
      }
      return Face(
        landmarks: points, rawLandmarks: face.landmarks,
        blendshapes: options.outputFaceBlendshapes ? blendshapes?.scores(points, imageWidth: w, imageHeight: h) : nil,
        transformationMatrix: matrix, metricMesh: mesh, detection: face.detection, presence: face.presence)
    }
  }

  /// MediaPipe's `AssociationNormRectCalculator`: each region in turn removes the earlier
  /// ones it overlaps by more than `threshold` (axis-aligned IoU), then joins the end.
  static func associate<Payload>(_ regions: [(rect: NormalizedRect, detection: Payload)], threshold: Float)
    -> [(rect: NormalizedRect, detection: Payload)]
  {
    var list: [(rect: NormalizedRect, detection: Payload)] = []
    for region in regions {
      list.removeAll { FaceRects.intersectionOverUnion($0.rect, region.rect) > threshold }
      list.append(region)
    }
    return list
  }

  private func smooth(_ faces: [([SIMD3<Float>], NormalizedRect)], timestamp: Int, width: Int, height: Int) -> [[SIMD3<
    Float
  >]] {
    if options.landmarkSmoothing == .off { return faces.map(\.0) }
    if options.numFaces == 1 || options.landmarkSmoothing == .mediaPipe {
      // MediaPipe smooths only with numFaces 1; a frame without a face resets the filter.
      guard options.numFaces == 1, let face = faces.first else {
        tracking.smoothers = []
        return faces.map(\.0)
      }
      if tracking.smoothers.isEmpty {
        tracking.smoothers = [(face.1, LandmarkSmoother(parameters: options.landmarkFilter))]
      }
      return [
        tracking.smoothers[0].smoother.smooth(
          face.0, timestampInMilliseconds: timestamp, imageWidth: width, imageHeight: height)
      ]
    }
    // Every face: follow each by the overlap of the regions its landmarks were read from.
    var previous = tracking.smoothers
    var current: [(region: NormalizedRect, smoother: LandmarkSmoother)] = []
    var out: [[SIMD3<Float>]] = []
    for (points, region) in faces {
      let best = previous.indices.max {
        FaceRects.intersectionOverUnion(previous[$0].region, region)
          < FaceRects.intersectionOverUnion(previous[$1].region, region)
      }
      var smoother = LandmarkSmoother(parameters: options.landmarkFilter)
      if let best, FaceRects.intersectionOverUnion(previous[best].region, region) > 0.3 {
        smoother = previous.remove(at: best).smoother
      }
      out.append(smoother.smooth(points, timestampInMilliseconds: timestamp, imageWidth: width, imageHeight: height))
      current.append((region, smoother))
    }
    tracking.smoothers = current
    return out
  }
}
