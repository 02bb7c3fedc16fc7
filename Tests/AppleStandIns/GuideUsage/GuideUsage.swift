// Not a stand-in: app code as the MediaPipe iOS guides write it, typechecked by
// .ci/typecheck-apple against the Apple build of Visage (never run). It checks that the
// guides' calls compile unchanged and that an orientation literal is not ambiguous between
// the UIImage.Orientation and MPImage.Orientation overloads.

import AppKit
import CoreMedia
import CoreVideo
import UIKit
import Visage
import VisageImageIO

func imagesAsTheGuidesMakeThem(
  uiImage: UIImage, pixelBuffer: CVPixelBuffer, sampleBuffer: CMSampleBuffer, nsImage: NSImage
) throws -> [MPImage] {
  let deviceOrientation: UIImage.Orientation = .right
  return [
    try MPImage(uiImage: uiImage),
    try MPImage(uiImage: uiImage, orientation: .left),
    try MPImage(pixelBuffer: pixelBuffer),
    try MPImage(pixelBuffer: pixelBuffer, orientation: .right),
    try MPImage(pixelBuffer: pixelBuffer, orientation: deviceOrientation),
    try MPImage(sampleBuffer: sampleBuffer),
    try MPImage(sampleBuffer: sampleBuffer, orientation: .up),
    try MPImage(sampleBuffer: sampleBuffer, orientation: deviceOrientation),
    try MPImage(cgImage: uiImage.cgImage!, orientation: MPImage.Orientation(deviceOrientation)),
    try MPImage(nsImage: nsImage),
    try MPImage(encoded: try PNG.encode(MPImage(width: 1, height: 1, rgb: [0, 0, 0]))),
  ]
}
