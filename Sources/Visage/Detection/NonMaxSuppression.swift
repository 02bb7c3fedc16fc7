/// MediaPipe's `NonMaxSuppressionCalculator` in its WEIGHTED mode with IoU overlap, the one
/// both face detectors use.
///
/// Detections are taken best score first. Each round, the best remaining detection and
/// every remaining one that overlaps it by more than the threshold (itself included) form a
/// cluster; the output keeps the best one's score and takes the score-weighted mean of the
/// cluster's boxes and keypoints. The rest go to the next round.
enum NonMaxSuppression {
  static func weighted(_ detections: [RawDetection], threshold: Float) -> [RawDetection] {
    // MediaPipe's std::sort is not stable: equal scores come out in an unspecified order.
    var remaining = detections.sorted { $0.score > $1.score }
    var output: [RawDetection] = []
    while let top = remaining.first {
      let before = remaining.count
      var candidates: [RawDetection] = []
      var rest: [RawDetection] = []
      for detection in remaining {
        if intersectionOverUnion(detection, top) > threshold {
          candidates.append(detection)
        } else {
          rest.append(detection)
        }
      }
      var merged = top
      if !candidates.isEmpty {
        var total: Float = 0
        var xmin: Float = 0
        var ymin: Float = 0
        var xmax: Float = 0
        var ymax: Float = 0
        var keypoints = [SIMD2<Float>](repeating: .zero, count: top.keypoints.count)
        for c in candidates {
          total += c.score
          xmin += c.xmin * c.score
          ymin += c.ymin * c.score
          xmax += (c.xmin + c.width) * c.score
          ymax += (c.ymin + c.height) * c.score
          for k in keypoints.indices {
            keypoints[k].x += c.keypoints[k].x * c.score
            keypoints[k].y += c.keypoints[k].y * c.score
          }
        }
        merged.xmin = xmin / total
        merged.ymin = ymin / total
        merged.width = xmax / total - merged.xmin
        merged.height = ymax / total - merged.ymin
        merged.keypoints = keypoints.map { SIMD2($0.x / total, $0.y / total) }
      }
      output.append(merged)
      // MediaPipe stops when a round removes nothing (a threshold of 1 or more).
      if rest.count == before { break }
      remaining = rest
    }
    return output
  }

  /// Overlap of two boxes as MediaPipe's `OverlapSimilarity` computes it on
  /// `Rectangle_f`s: corners are min and min + size, areas come from the corners (not the
  /// stored size), touching boxes intersect with zero area, a non-positive union gives 0.
  static func intersectionOverUnion(_ a: RawDetection, _ b: RawDetection) -> Float {
    intersectionOverUnion(a.box, b.box)
  }

  /// The same overlap for boxes given as (xmin, ymin, width, height).
  static func intersectionOverUnion(_ a: RawDetection.Box, _ b: RawDetection.Box) -> Float {
    let (ax0, ay0, ax1, ay1) = (a.xmin, a.ymin, a.xmin + a.width, a.ymin + a.height)
    let (bx0, by0, bx1, by1) = (b.xmin, b.ymin, b.xmin + b.width, b.ymin + b.height)
    if ax0 > ax1 || ay0 > ay1 || bx0 > bx1 || by0 > by1 { return 0 }
    if bx1 < ax0 || ax1 < bx0 || by1 < ay0 || ay1 < by0 { return 0 }
    let intersection = (min(ax1, bx1) - max(ax0, bx0)) * (min(ay1, by1) - max(ay0, by0))
    let union = (ax1 - ax0) * (ay1 - ay0) + (bx1 - bx0) * (by1 - by0) - intersection
    return union > 0 ? intersection / union : 0
  }
}
