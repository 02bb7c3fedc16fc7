import Foundation

/// A face found by a detector before it is turned into a public `Detection`: a box and six
/// keypoints, normalized to whatever frame the last step left them in (the model's input,
/// then the image).
struct RawDetection: Sendable, Equatable {
  var score: Float
  var xmin: Float
  var ymin: Float
  var width: Float
  var height: Float
  /// The six keypoints in MediaPipe's order (subject's right eye first).
  var keypoints: [SIMD2<Float>]
  /// The landmark model's face presence in the detection's region, when a search checked it.
  var presence: Float? = nil

  /// A box as MediaPipe's relative bounding box stores it.
  typealias Box = (xmin: Float, ymin: Float, width: Float, height: Float)
  var box: Box { (xmin, ymin, width, height) }
}

/// Turns a BlazeFace model's two outputs into scored boxes, as MediaPipe's
/// `TensorsToDetectionsCalculator` does with the face detector's options: XYWH boxes
/// (reverse_output_order), offsets scaled by the input size around fixed unit anchors, six
/// (x, y) keypoints, sigmoid scores after clipping logits to ±100, and a kept box when its
/// score is at least the threshold.
struct TensorsToDetections: Sendable {
  let anchors: SSDAnchors
  /// The scale every offset is divided by: the model's input size.
  let scale: Float
  static let coordinatesPerAnchor = 16
  static let keypointCount = 6
  private static let scoreClippingThreshold: Float = 100

  /// - Parameters:
  ///   - boxes: `anchors.count × 16` raw values (model output 0).
  ///   - scores: `anchors.count` logits (model output 1).
  func decode(
    boxes: UnsafeBufferPointer<Float>, scores: UnsafeBufferPointer<Float>, minScore: Float
  ) -> [RawDetection] {
    var detections: [RawDetection] = []
    for (i, anchor) in anchors.centers.enumerated() {
      let logit = min(max(scores[i], -Self.scoreClippingThreshold), Self.scoreClippingThreshold)
      let score = sigmoid(logit)
      if score < minScore { continue }
      let r = boxes.baseAddress! + i * Self.coordinatesPerAnchor
      let xCenter = r[0] / scale + anchor.x
      let yCenter = r[1] / scale + anchor.y
      let w = r[2] / scale
      let h = r[3] / scale
      let ymin = yCenter - h / 2
      let xmin = xCenter - w / 2
      let ymax = yCenter + h / 2
      let xmax = xCenter + w / 2
      let width = xmax - xmin
      let height = ymax - ymin
      // MediaPipe drops boxes of negative or NaN size.
      guard width >= 0, height >= 0 else { continue }
      let keypoints = (0..<Self.keypointCount).map { k in
        SIMD2(r[4 + 2 * k] / scale + anchor.x, r[5 + 2 * k] / scale + anchor.y)
      }
      detections.append(
        RawDetection(score: score, xmin: xmin, ymin: ymin, width: width, height: height, keypoints: keypoints))
    }
    return detections
  }
}
