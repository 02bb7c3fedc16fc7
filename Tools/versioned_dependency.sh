#!/usr/bin/env bash
# Builds and runs a throwaway package that depends on Visage by version, as an app would
# (issue 15): a clone of this repository's HEAD tagged 1.0.0, named with `from: "1.0.0"`,
# built with a plain `swift build -c release` (no flags). The program runs the face detector
# on the astronaut 200 times and prints the instruction set the kernels chose, the faces found
# and the median and minimum detect time; then once more capped at the baseline. A second
# program uses VisageMLKit with no model path, so the built-in models must come from the
# dependency's resource bundle (Bundle.module), as an app gets them.
#
#     bash Tools/versioned_dependency.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/visage-dependency.XXXXXX)
trap 'rm -rf "$work"' EXIT

git clone -q "$repo" "$work/visage"
git -C "$work/visage" tag 1.0.0
mkdir -p "$work/consumer/Sources/Consumer"
cat >"$work/consumer/Package.swift" <<EOF
// swift-tools-version:6.2
import PackageDescription

let package = Package(
  name: "Consumer",
  dependencies: [.package(url: "$work/visage", from: "1.0.0")],
  targets: [
    .executableTarget(
      name: "Consumer",
      dependencies: [
        .product(name: "Visage", package: "visage"), .product(name: "VisageImageIO", package: "visage"),
      ]),
    .executableTarget(name: "MLKitConsumer", dependencies: [.product(name: "VisageMLKit", package: "visage")]),
  ])
EOF
mkdir -p "$work/consumer/Sources/MLKitConsumer"
cat >"$work/consumer/Sources/MLKitConsumer/main.swift" <<EOF
import VisageMLKit

let options = FaceDetectorOptions()
options.landmarkMode = .all
let image = try VisionImage(contentsOfFile: "$work/visage/Tests/Fixtures/images/astronaut.png")
let faces = try FaceDetector.faceDetector(options: options).results(in: image)
print("VisageMLKit with its built-in models: \\(faces.count) face, frame \\(faces[0].frame), \\(faces[0].landmarks.count) landmarks")
EOF
# VisageKernels is not a product: its module comes in with Visage's, and the program imports it
# only to print the instruction set the kernels chose.
cat >"$work/consumer/Sources/Consumer/main.swift" <<EOF
import Foundation
import Visage
import VisageImageIO
import VisageKernels

let root = "$work/visage"
let options = FaceDetectorOptions(baseOptions: BaseOptions(modelAssetPath: root + "/Weights/face_landmarker.task"))
let detector = try FaceDetector(options: options)
let image = try MPImage(contentsOfFile: root + "/Tests/Fixtures/images/astronaut.png")
var times: [Double] = []
var faces = 0
for _ in 0..<200 {
  let start = DispatchTime.now().uptimeNanoseconds
  faces = try detector.detect(image: image).detections.count
  times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
}
times.sort()
print("instruction set \(InstructionSet.active), faces \(faces), detect median \(times[100]) ms, min \(times[0]) ms")
EOF
cd "$work/consumer"
swift build -c release 2>&1 | tail -1
./.build/release/Consumer
VISAGE_MAX_ISA=baseline ./.build/release/Consumer
./.build/release/MLKitConsumer
