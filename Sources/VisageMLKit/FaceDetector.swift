import Dispatch
import Foundation
import Visage
import VisageKernels

/// What `FaceDetector.process(_:completion:)` calls: the faces, or an error.
public typealias FaceDetectionCallback = ([Face]?, (any Error)?) -> Void

/// Finds faces the way Google ML Kit's face detector does: ML Kit's `FaceDetector`.
///
/// Made by `FaceDetector.faceDetector(options:)` (or the Firebase-era
/// `Vision.vision().faceDetector(options:)`), with no model path: the models are built in.
/// `process(_:completion:)` works in the background and calls back on the main queue;
/// `results(in:)` works on the calling thread. Calls are serialised; with tracking on, IDs
/// carry over from call to call.
public final class FaceDetector: Sendable {
  /// The detector's own copy of its options: never changed once made, only read, so any
  /// thread may read it.
  private let settings: Unchecked<FaceDetectorOptions>
  private var options: FaceDetectorOptions { settings.value }
  /// The analyzer, made at the first call (so that making a detector cannot fail, as in ML
  /// Kit); a failure to load is kept and reported by every call. Its lock serialises calls.
  private let analyzer = LockedState<Result<FaceAnalyzer, any Error>?>(nil)
  private let queue = DispatchQueue(label: "visage.mlkit.face-detector")

  private init(options: FaceDetectorOptions) {
    settings = Unchecked(options.copy())
  }

  /// A detector with these options (copied: later changes do not reach it).
  public static func faceDetector(options: FaceDetectorOptions) -> FaceDetector {
    FaceDetector(options: options)
  }

  /// A detector with ML Kit's default options.
  public static func faceDetector() -> FaceDetector {
    FaceDetector(options: FaceDetectorOptions())
  }

  /// Finds the faces in an image in the background, then calls `completion` on the options'
  /// `completionQueue` (the main queue unless changed) with the faces, or with an error.
  /// The image is read before this returns.
  public func process(_ image: VisionImage, completion: @escaping FaceDetectionCallback) {
    let picture = Result { try image.snapshot() }
    // ML Kit's completion closures are plain closures: this one is called once, on the
    // completion queue.
    let reply = Unchecked(completion)
    let completionQueue = options.completionQueue
    queue.async {
      let outcome = Result { try self.analyze(picture.get()) }
      completionQueue.async {
        switch outcome {
        case .success(let faces): reply.value(self.faces(faces), nil)
        case .failure(let error): reply.value(nil, error)
        }
      }
    }
  }

  /// Finds the faces in an image on the calling thread.
  public func results(in image: VisionImage) throws -> [Face] {
    faces(try analyze(image.snapshot()))
  }

  /// Visage's faces for a still image, from the analyzer (made on first use).
  private func analyze(_ picture: MPImage) throws -> [Visage.Face] {
    try analyzer.withLock { analyzer in
      if analyzer == nil { analyzer = Result { try FaceAnalyzer(options: options.analyzerOptions()) } }
      return try analyzer!.get().analyze(image: picture)
    }
  }

  /// ML Kit's faces from Visage's: landmarks by yaw, contours for the most prominent face,
  /// Euler angles only where ML Kit gives them, unless the options ask for more.
  private func faces(_ found: [Visage.Face]) -> [Face] {
    let prominent = found.indices.max {
      found[$0].frame.width * found[$0].frame.height < found[$1].frame.width * found[$1].frame.height
    }
    return found.indices.map { i in
      let face = found[i]
      let visible =
        options.reportsEveryLandmark
        ? Set(FaceLandmarkType.allCases)
        : FaceDetectorOptions.landmarkTypes(forYaw: CGFloat(face.headEulerAngleY))
      let landmarks = face.landmarks.filter { visible.contains($0.type) }.map(FaceLandmark.init)
      let contours = options.contoursForEveryFace || i == prominent ? face.contours.map(FaceContour.init) : []
      return Face(face, hasEulerAngles: options.reportsEulerAngles, landmarks: landmarks, contours: contours)
    }
  }
}
