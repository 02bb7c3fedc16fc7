import Foundation

/// Where ML Kit's landmarks and contours sit on MediaPipe's 478-point face mesh.
///
/// Mesh indices follow MediaPipe's canonical face model, whose "left" is the subject's left
/// (vertex 263, the outer corner of the subject's left eye, lies on the image's right). Every
/// ML Kit point count has a mesh outline of exactly that length, so contours are mesh vertices
/// taken as they are, never resampled:
/// - face (36): the mesh's face oval, which starts at the top of the forehead (10); listed
///   clockwise in the image (toward the subject's left first).
/// - eyebrows (5 + 5 each): the mesh's brow outlines, whose upper and lower edges have five
///   vertices each.
/// - eyes (16 each): the lid margins, eight vertices per lid plus the two corners, starting at
///   the corner on the subject's right (outer corner 33 of the right eye, inner corner 362 of
///   the left) and going clockwise in the image: upper lid first.
/// - lips: the outer upper edge with both corners (11), and the inner upper, inner lower and
///   outer lower edges without them (9 each), as ML Kit counts them.
/// - nose bridge (2): between the eyes (168) and the tip (1); nose bottom (3): the wings
///   where they meet the face (98, 327) and the base between the nostrils (2).
/// - cheeks (1 each): the vertex at the centre of each cheek, below the outer half of the eye
///   (50, 280).
/// Landmarks that ML Kit defines as a midpoint are computed as that midpoint:
/// - eyes: the centre of the 16-point eye contour (the eye opening, so gaze does not move it,
///   unlike the iris points);
/// - cheeks: midway between the mouth corner (61, 291) and the outer eye corner (33, 263);
/// - mouth bottom: midway between the centres of the lower lip's top and bottom edges (14, 17);
/// - nose base: the mesh's subnasal point (2); mouth corners: 61 and 291;
/// - ears: the mesh has no ears, so each is the face-oval vertex where the face meets the ear
///   (234, 454).
enum FaceMeshFeatures {
  /// Mesh vertices of each contour, in ML Kit's point order.
  static let contourIndices: [FaceContourType: [Int]] = [
    .face: [
      10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377,
      152, 148, 176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109,
    ],
    .leftEyebrowTop: [336, 296, 334, 293, 300],
    .leftEyebrowBottom: [285, 295, 282, 283, 276],
    .rightEyebrowTop: [70, 63, 105, 66, 107],
    .rightEyebrowBottom: [46, 53, 52, 65, 55],
    .leftEye: [362, 398, 384, 385, 386, 387, 388, 466, 263, 249, 390, 373, 374, 380, 381, 382],
    .rightEye: [33, 246, 161, 160, 159, 158, 157, 173, 133, 155, 154, 153, 145, 144, 163, 7],
    .upperLipTop: [61, 185, 40, 39, 37, 0, 267, 269, 270, 409, 291],
    .upperLipBottom: [191, 80, 81, 82, 13, 312, 311, 310, 415],
    .lowerLipTop: [95, 88, 178, 87, 14, 317, 402, 318, 324],
    .lowerLipBottom: [146, 91, 181, 84, 17, 314, 405, 321, 375],
    .noseBridge: [168, 1],
    .noseBottom: [98, 2, 327],
    .leftCheek: [280],
    .rightCheek: [50],
  ]

  /// Mesh vertices averaged for each landmark (one vertex where the landmark is a vertex).
  static let landmarkIndices: [FaceLandmarkType: [Int]] = [
    .leftEye: contourIndices[.leftEye]!,
    .rightEye: contourIndices[.rightEye]!,
    .leftEar: [454],
    .rightEar: [234],
    .leftCheek: [291, 263],
    .rightCheek: [61, 33],
    .noseBase: [2],
    .mouthLeft: [291],
    .mouthRight: [61],
    .mouthBottom: [14, 17],
  ]

  /// The ten landmarks from the mesh in pixels, and the mesh's depth in pixels.
  static func landmarks(_ mesh: [CGPoint], depths: [CGFloat]) -> [FaceLandmark] {
    FaceLandmarkType.allCases.map { type in
      let indices = landmarkIndices[type]!
      let sum = indices.reduce(into: (x: CGFloat(0), y: CGFloat(0), z: CGFloat(0))) { sum, i in
        sum.x += mesh[i].x
        sum.y += mesh[i].y
        sum.z += depths[i]
      }
      let n = CGFloat(indices.count)
      return FaceLandmark(type: type, position: CGPoint(x: sum.x / n, y: sum.y / n), depth: sum.z / n)
    }
  }

  /// The fifteen contours from the mesh in pixels, and the mesh's depth in pixels.
  static func contours(_ mesh: [CGPoint], depths: [CGFloat]) -> [FaceContour] {
    FaceContourType.allCases.map { type in
      let indices = contourIndices[type]!
      return FaceContour(type: type, points: indices.map { mesh[$0] }, depths: indices.map { depths[$0] })
    }
  }
}
