// Not a stand-in: app code as the Firebase ML Kit face detection guide for iOS writes it,
// typechecked by .ci/typecheck-apple against the Apple build of VisageMLKit (never run): the
// camera-orientation helper, `VisionImage(image:)` and `VisionImage(buffer:)` with metadata,
// `process(_:completion:)`, and every property the guide reads. Apart from ML Kit's Visage
// module name, only `@unknown default` is added (the enums are Apple's open C enums).

import AVFoundation
import UIKit
import VisageMLKit

final class CameraFaces {
  lazy var vision = Vision.vision()

  func imageOrientation(
    deviceOrientation: UIDeviceOrientation, cameraPosition: AVCaptureDevice.Position
  ) -> VisionDetectorImageOrientation {
    switch deviceOrientation {
    case .portrait: return cameraPosition == .front ? .leftTop : .rightTop
    case .landscapeLeft: return cameraPosition == .front ? .bottomLeft : .topLeft
    case .portraitUpsideDown: return cameraPosition == .front ? .rightBottom : .leftBottom
    case .landscapeRight: return cameraPosition == .front ? .topRight : .bottomRight
    case .faceDown, .faceUp, .unknown: return .leftTop
    @unknown default: return .leftTop
    }
  }

  func detect(uiImage: UIImage, sampleBuffer: CMSampleBuffer) {
    let options = VisionFaceDetectorOptions()
    options.performanceMode = .accurate
    options.landmarkMode = .all
    options.classificationMode = .all
    options.contourMode = .all
    let faceDetector = vision.faceDetector(options: options)

    let still = VisionImage(image: uiImage)
    // The current SDK's guide: the image's own orientation, assigned as it comes.
    still.orientation = uiImage.imageOrientation
    let cameraPosition = AVCaptureDevice.Position.front
    let metadata = VisionImageMetadata()
    metadata.orientation = imageOrientation(
      deviceOrientation: UIDevice.current.orientation, cameraPosition: cameraPosition)
    let frame = VisionImage(buffer: sampleBuffer)
    frame.metadata = metadata
    // The current SDK's way: an orientation on the image itself.
    frame.orientation = .leftMirrored

    for image in [still, frame] {
      faceDetector.process(image) { faces, error in
        guard error == nil, let faces = faces, !faces.isEmpty else { return }
        for face in faces {
          let frame: CGRect = face.frame
          if face.hasHeadEulerAngleY { _ = face.headEulerAngleY + frame.width }
          if face.hasHeadEulerAngleZ { _ = face.headEulerAngleZ }
          if let leftEye = face.landmark(ofType: .leftEye) { _ = leftEye.position.x }
          if let contour = face.contour(ofType: .leftEye) { _ = contour.points.map(\.y) }
          if let contour = face.contour(ofType: .upperLipBottom) { _ = contour.points.count }
          if face.hasSmilingProbability { _ = face.smilingProbability }
          if face.hasRightEyeOpenProbability { _ = face.rightEyeOpenProbability }
          if face.hasTrackingID { _ = face.trackingID }
        }
      }
    }
    // The current SDK's synchronous call.
    _ = try? FaceDetector.faceDetector(options: options).results(in: still)
  }
}
