import Foundation

/// Gives faces tracking IDs that last while a face stays in view from call to call.
///
/// Each call's faces are matched to the previous call's by the overlap of their frames,
/// most-overlapping pairs first; a face whose best overlap is below `minimumOverlap` (or that
/// has no partner left) gets a new ID, and IDs of faces that are not seen again are dropped.
/// The face landmarker already follows faces between video frames by their mesh, so a face
/// in view moves little from one frame to the next and overlaps its previous frame well; the
/// threshold is loose enough for fast motion and strict enough to tell neighbours apart.
struct FaceTracker {
  /// The intersection over union below which two frames are different faces.
  static let minimumOverlap = 0.3

  private var previous: [(id: Int, frame: CGRect)] = []
  private var nextID = 1

  /// The IDs of `frames`, in order.
  mutating func assign(_ frames: [CGRect]) -> [Int] {
    var pairs: [(overlap: Double, face: Int, old: Int)] = []
    for (i, frame) in frames.enumerated() {
      for (j, old) in previous.enumerated() {
        let overlap = Self.intersectionOverUnion(frame, old.frame)
        if overlap >= Self.minimumOverlap { pairs.append((overlap, i, j)) }
      }
    }
    pairs.sort { $0.overlap > $1.overlap }
    var ids = [Int?](repeating: nil, count: frames.count)
    var taken = Set<Int>()
    for pair in pairs where ids[pair.face] == nil && !taken.contains(pair.old) {
      ids[pair.face] = previous[pair.old].id
      taken.insert(pair.old)
    }
    let assigned = ids.map { id -> Int in
      if let id { return id }
      defer { nextID += 1 }
      return nextID
    }
    previous = Array(zip(assigned, frames))
    return assigned
  }

  /// Forgets every face, so the next call starts new IDs (numbering continues).
  mutating func reset() { previous = [] }

  /// The detector's box overlap, on frames in pixels.
  static func intersectionOverUnion(_ a: CGRect, _ b: CGRect) -> Double {
    func box(_ r: CGRect) -> RawDetection.Box { (Float(r.minX), Float(r.minY), Float(r.width), Float(r.height)) }
    return Double(NonMaxSuppression.intersectionOverUnion(box(a), box(b)))
  }
}
