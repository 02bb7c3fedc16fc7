import Foundation
import Visage

/// Draws results onto a copy of an image's RGB pixels, for `--annotate`.
struct Canvas {
  private(set) var pixels: [UInt8]
  let width: Int
  let height: Int

  init(_ image: MPImage) {
    pixels = image.pixels
    width = image.width
    height = image.height
  }

  /// Lines scale with the image so annotations stay visible on large photos.
  var lineWidth: Int { max(2, min(width, height) / 256) }

  /// The annotated image: the picture the task ran on, upright unless `--ignore-exif`.
  func image() throws -> MPImage { try MPImage(width: width, height: height, rgb: pixels) }

  /// Fills the rectangle [x0, x1) × [y0, y1), clipped to the image.
  mutating func fill(x0: Int, y0: Int, x1: Int, y1: Int, color: (UInt8, UInt8, UInt8)) {
    let (xa, xb) = (max(0, x0), min(width, x1))
    let (ya, yb) = (max(0, y0), min(height, y1))
    guard xa < xb, ya < yb else { return }
    for y in ya..<yb {
      for x in xa..<xb {
        let i = (y * width + x) * 3
        pixels[i] = color.0
        pixels[i + 1] = color.1
        pixels[i + 2] = color.2
      }
    }
  }

  /// The outline of a box, drawn inside its edges.
  mutating func strokeRect(x: Int, y: Int, width w: Int, height h: Int, color: (UInt8, UInt8, UInt8)) {
    let t = lineWidth
    fill(x0: x, y0: y, x1: x + w, y1: y + t, color: color)
    fill(x0: x, y0: y + h - t, x1: x + w, y1: y + h, color: color)
    fill(x0: x, y0: y, x1: x + t, y1: y + h, color: color)
    fill(x0: x + w - t, y0: y, x1: x + w, y1: y + h, color: color)
  }

  /// A filled square dot centred on a point in pixels.
  mutating func dot(x: Double, y: Double, color: (UInt8, UInt8, UInt8)) {
    guard x.isFinite, y.isFinite, abs(x) < 1e7, abs(y) < 1e7 else { return }
    let r = lineWidth + 1
    let (cx, cy) = (Int(x.rounded()), Int(y.rounded()))
    fill(x0: cx - r, y0: cy - r, x1: cx + r + 1, y1: cy + r + 1, color: color)
  }

  /// Boxes in green, each with a green tick from its centre towards the top of the face (its
  /// in-plane rotation); keypoints in one colour per kind (eyes blue, nose red, mouth
  /// yellow, tragions magenta).
  mutating func draw(_ result: FaceDetectorResult) {
    let colors: [(UInt8, UInt8, UInt8)] = [
      (0, 128, 255), (0, 128, 255), (255, 0, 0), (255, 220, 0), (255, 0, 255), (255, 0, 255),
    ]
    for detection in result.detections {
      let b = detection.boundingBox
      strokeRect(x: Int(b.minX), y: Int(b.minY), width: Int(b.width), height: Int(b.height), color: (0, 255, 0))
      if let degrees = detection.inPlaneRotation(imageWidth: width, imageHeight: height) {
        // The eye line turned a quarter counter-clockwise on screen points to the forehead.
        let angle = degrees * .pi / 180
        let reach = Double(min(b.width, b.height)) / 2
        line(
          from: (Double(b.midX), Double(b.midY)),
          to: (Double(b.midX) + sin(angle) * reach, Double(b.midY) - cos(angle) * reach),
          thickness: lineWidth, color: (0, 255, 0))
      }
      for (k, keypoint) in (detection.keypoints ?? []).enumerated() {
        dot(
          x: keypoint.location.x * Double(width), y: keypoint.location.y * Double(height),
          color: colors[k % colors.count])
      }
    }
  }
}

extension Canvas {
  /// A straight line of the given thickness between two points in pixels.
  mutating func line(from a: (Double, Double), to b: (Double, Double), thickness: Int, color: (UInt8, UInt8, UInt8)) {
    guard a.0.isFinite, a.1.isFinite, b.0.isFinite, b.1.isFinite,
      max(abs(a.0), abs(a.1), abs(b.0), abs(b.1)) < 1e6
    else { return }
    let steps = max(1, Int(max(abs(b.0 - a.0), abs(b.1 - a.1)).rounded(.up)))
    // Skip lines that lie wholly outside the image so that a wild point costs nothing.
    guard max(a.0, b.0) >= -Double(thickness), min(a.0, b.0) < Double(width + thickness),
      max(a.1, b.1) >= -Double(thickness), min(a.1, b.1) < Double(height + thickness)
    else { return }
    let low = (thickness - 1) / 2
    let high = thickness / 2
    for s in 0...steps {
      let t = Double(s) / Double(steps)
      let x = Int((a.0 + (b.0 - a.0) * t).rounded())
      let y = Int((a.1 + (b.1 - a.1) * t).rounded())
      fill(x0: x - low, y0: y - low, x1: x + high + 1, y1: y + high + 1, color: color)
    }
  }

  /// The face mesh as MediaPipe's face landmarker examples draw it: the tessellation in
  /// gray, then lips and face oval in white, the subject's left eye, eyebrow and iris in
  /// green and the right ones in red. Line widths grow with the image past 512 pixels.
  mutating func draw(_ result: FaceLandmarkerResult) {
    let thin = max(1, min(width, height) / 512)
    let thick = lineWidth
    let white: (UInt8, UInt8, UInt8) = (224, 224, 224)
    let green: (UInt8, UInt8, UInt8) = (48, 255, 48)
    let red: (UInt8, UInt8, UInt8) = (255, 48, 48)
    let layers: [([Connection], Int, (UInt8, UInt8, UInt8))] = [
      (FaceLandmarksConnections.tesselation, thin, (128, 128, 128)),
      (FaceLandmarksConnections.lips, thick, white), (FaceLandmarksConnections.faceOval, thick, white),
      (FaceLandmarksConnections.leftEye, thick, green), (FaceLandmarksConnections.leftEyebrow, thick, green),
      (FaceLandmarksConnections.leftIris, thick, green),
      (FaceLandmarksConnections.rightEye, thick, red), (FaceLandmarksConnections.rightEyebrow, thick, red),
      (FaceLandmarksConnections.rightIris, thick, red),
    ]
    for face in result.faceLandmarks {
      let points = face.map { (Double($0.x) * Double(width), Double($0.y) * Double(height)) }
      for (connections, thickness, color) in layers {
        for c in connections where c.start < points.count && c.end < points.count {
          line(from: points[c.start], to: points[c.end], thickness: thickness, color: color)
        }
      }
    }
  }
}

extension Canvas {
  /// Frames in green, contours as cyan lines, landmarks as red dots.
  mutating func draw(_ faces: [Face]) {
    for face in faces {
      let f = face.frame
      strokeRect(
        x: Int(f.minX), y: Int(f.minY), width: Int(f.width.rounded()), height: Int(f.height.rounded()),
        color: (0, 255, 0))
      for contour in face.contours {
        let closed = contour.type == .face || contour.type == .leftEye || contour.type == .rightEye
        let ends = closed ? contour.points + [contour.points[0]] : contour.points
        for (a, b) in zip(ends, ends.dropFirst()) {
          line(
            from: (Double(a.x), Double(a.y)), to: (Double(b.x), Double(b.y)), thickness: max(1, lineWidth - 1),
            color: (0, 220, 255))
        }
        if contour.points.count == 1 { dot(x: contour.points[0].x, y: contour.points[0].y, color: (0, 220, 255)) }
      }
      for landmark in face.landmarks { dot(x: landmark.position.x, y: landmark.position.y, color: (255, 40, 40)) }
    }
  }
}
