import Foundation
import Testing
import Visage
import VisageReports

/// The results' one encoding: the ordered encoder keeps the order the types write, writes
/// non-finite floats as null, and otherwise says what `JSONEncoder` says of the same values,
/// so a Swift server returning the library's results directly sends the same objects.
@Suite struct ResultEncodingTests {
  static let detection = Detection(
    categories: [ResultCategory(index: 0, score: 0.92, categoryName: "face", displayName: nil)],
    boundingBox: CGRect(x: 177, y: 82, width: 95, height: 95),
    keypoints: FaceKeypoint.allCases.map {
      NormalizedKeypoint(location: CGPoint(x: 0.4 + 0.01 * Double($0.rawValue), y: 0.2), label: $0.label, score: 0)
    })

  static let landmarks = FaceLandmarkerResult(
    faceLandmarks: [[NormalizedLandmark(x: 0.5, y: 0.25, z: -0.125)]],
    faceBlendshapes: [
      Classifications(
        headIndex: 0, headName: nil,
        categories: [ResultCategory(index: 0, score: 0.5, categoryName: "_neutral", displayName: nil)])
    ], facialTransformationMatrixes: [.identity], timestampInMilliseconds: 0)

  /// Parsed JSON, for comparing objects whatever their key order.
  static func parsed(_ text: String) throws -> NSObject {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed) as? NSObject)
  }

  static func agreesWithJSONEncoder(_ value: some Encodable, userInfo: [CodingUserInfoKey: any Sendable] = [:]) throws {
    let ordered = try OrderedJSONEncoder(userInfo: userInfo).encode(value).description
    let foundation = JSONEncoder()
    foundation.userInfo = userInfo
    let standard = String(decoding: try foundation.encode(value), as: UTF8.self)
    #expect(try parsed(ordered) == parsed(standard), "\(ordered)\n\(standard)")
  }

  @Test func detectionsAsTheContractWritesThem() throws {
    let options = ResultEncodingOptions(imageWidth: 512, imageHeight: 512)
    let json = try OrderedJSONEncoder(userInfo: [.visageResultEncoding: options]).encode(
      FaceDetectorResult(detections: [Self.detection], timestampInMilliseconds: 0))
    #expect(
      json.description
        .hasPrefix(
          #"{"detections": [{"boundingBox": {"originX": 177, "originY": 82, "width": 95, "height": 95}, "categories": [{"index": 0, "score": 0.92, "categoryName": "face"}], "keypoints": [{"x": 0.4, "y": 0.2, "label": "leftEye"}"#
        ))
    #expect(json.description.hasSuffix(#""rotation": 0.0}]}"#))
    // Without the picture's size there is no rotation.
    let encoded = try OrderedJSONEncoder().encode(Self.detection).description
    #expect(!encoded.contains("rotation"))
    try Self.agreesWithJSONEncoder(Self.detection, userInfo: [.visageResultEncoding: options])
  }

  @Test func landmarkerOutputsAreWrittenAsAskedForEvenWithNoFace() throws {
    let none = FaceLandmarkerResult(
      faceLandmarks: [], faceBlendshapes: [], facialTransformationMatrixes: [], timestampInMilliseconds: 0)
    let asked = ResultEncodingOptions(includesFaceBlendshapes: true, includesFacialTransformationMatrixes: false)
    #expect(
      try OrderedJSONEncoder(userInfo: [.visageResultEncoding: asked]).encode(none).description
        == #"{"faceLandmarks": [], "faceBlendshapes": []}"#)
    #expect(
      try OrderedJSONEncoder().encode(Self.landmarks).description
        == #"{"faceLandmarks": [[{"x": 0.5, "y": 0.25, "z": -0.125}]], "faceBlendshapes": [[{"index": 0, "score": 0.5, "categoryName": "_neutral"}]], "facialTransformationMatrixes": [[[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]]}"#
    )
    try Self.agreesWithJSONEncoder(Self.landmarks)
  }

  @Test func facesAsMLKitNamesThem() throws {
    let face = Face(
      frame: CGRect(x: 1.5, y: 2, width: 3, height: 4), headEulerAngleX: 1, headEulerAngleY: -2, headEulerAngleZ: 0.5,
      landmarks: [FaceLandmark(type: .leftEye, position: CGPoint(x: 10, y: 20))], smilingProbability: 0.25,
      trackingID: 7)
    #expect(
      try OrderedJSONEncoder().encode(FacesResult(faces: [face])).description
        == #"{"faces": [{"frame": {"x": 1.5, "y": 2.0, "width": 3.0, "height": 4.0}, "headEulerAngleX": 1.0, "headEulerAngleY": -2.0, "headEulerAngleZ": 0.5, "landmarks": {"leftEye": {"x": 10.0, "y": 20.0}}, "smilingProbability": 0.25, "trackingID": 7}]}"#
    )
    try Self.agreesWithJSONEncoder(FacesResult(faces: [face]))
  }

  @Test func aReportWritesTheFramesFieldsThenTheResults() throws {
    let report = ImageReport(
      source: "a.png", width: 640, height: 480, orientation: .right, exifOrientation: .right, timestampMs: 33,
      dropped: true, result: FaceDetectorResult(detections: [], timestampInMilliseconds: 33))
    #expect(
      try report.json(report.encodingOptions()).description
        == #"{"source": "a.png", "width": 640, "height": 480, "orientation": "right", "exifOrientation": 6, "timestampMs": 33, "dropped": true, "detections": []}"#
    )
    let still = ImageReport(
      source: "b", width: 1, height: 1, orientation: .up, exifOrientation: nil, result: FacesResult(faces: []))
    // No timestamp and not dropped: neither key; no Exif tag: null.
    #expect(
      try still.json(still.encodingOptions()).description
        == (#"{"source": "b", "width": 1, "height": 1, "orientation": "up", "exifOrientation": null, "faces": []}"#))
  }

  @Test func nonFiniteFloatsAreNullAndStringsAreEscaped() throws {
    struct Sample: Encodable {
      var nan = Float.nan
      var infinity = Double.infinity
      var text = "a\"b\\c\n\u{1}é"
      var missing: Int? = nil
      var array: [Float?] = [1, nil]
      var small: Int8 = -3
      var large: UInt64 = .max
    }
    #expect(
      try OrderedJSONEncoder().encode(Sample()).description
        == #"{"nan": null, "infinity": null, "text": "a\"b\\c\n\u0001é", "array": [1.0, null], "small": -3, "large": 18446744073709551615}"#
    )
  }
}
