import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import Visage
import VisageImageIO

@testable import VisageRequests
@testable import VisageServer

/// Cloud Vision's `images:annotate` (the request's forms, each image's error, the faces'
/// fields and Google's left, right and signs), the page's files, and the landmarker's head
/// poses, through the router. Google's own client is run against the live server by
/// `Server/Tools/cloud_vision_check.py` in `.ci/server-checks`.
@Suite(.timeLimit(.minutes(5))) struct CloudVisionAndPageTests {
  typealias F = ServerFixtures

  static func annotate(_ client: some TestClientProtocol, _ body: String, uri: String = "/v1/images:annotate")
    async throws -> TestResponse
  {
    try await client.execute(
      uri: uri, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
  }

  static func request(_ image: [UInt8], features: String = #"[{"type": 1}]"#) -> String {
    #"{"image": {"content": "\#(Data(image).base64EncodedString())"}, "features": \#(features)}"#
  }

  static func responses(_ response: TestResponse) throws -> [[String: Any]] {
    #expect(response.status == .ok, "\(String(buffer: response.body))")
    return try #require(try F.object(response.body)["responses"] as? [[String: Any]])
  }

  /// An image's response is the library's analysis written by `CloudVision.ImageResponse`, byte for
  /// byte; every landmark type comes once.
  @Test func anImagesFacesAreTheAnalyzersInGooglesShape() async throws {
    let engine = try F.engine()
    let options = try TaskRequest(
      kind: .analyze, query: [("performance", "accurate"), ("landmarks", "true"), ("classification", "true")]
    ).analyzerOptions(models: F.models, video: false)
    let image = try DecodedImage(encoded: F.astronaut).image
    let faces = try FaceAnalyzer(options: options).analyzeInDetail(image: image)
    let expected = CloudVision.BatchResponse(responses: [
      CloudVision.ImageResponse(faces, maxResults: 10, width: image.width, height: image.height)
    ]).json
    try await makeApplication(engine: engine).test(.router) { client in
      // Google's client sends `$alt=json;enum-encoding=int`.
      let response = try await Self.annotate(
        client, #"{"requests": [\#(Self.request(F.astronaut))]}"#,
        uri: "/v1/images:annotate?%24alt=json%3Benum-encoding%3Dint")
      #expect(String(buffer: response.body) == expected.description)
      let face = try #require((try Self.responses(response)[0]["faceAnnotations"] as? [[String: Any]])?.first)
      let types = try #require(face["landmarks"] as? [[String: Any]]).compactMap { $0["type"] as? String }
      #expect(types == CloudVisionLandmark.allCases.map(\.rawValue) && Set(types).count == 36)
      for field in ["boundingPoly", "fdBoundingPoly"] {
        let vertices = try #require((face[field] as? [String: Any])?["vertices"] as? [[String: Int]])
        #expect(vertices.count == 4 && vertices.allSatisfy { $0["x"] != nil && $0["y"] != nil })
      }
      #expect((face["detectionConfidence"] as? Double).map { $0 > 0.5 && $0 <= 1 } == true)
      #expect((face["landmarkingConfidence"] as? Double).map { $0 > 0.5 && $0 <= 1 } == true)
      // The astronaut smiles.
      #expect(face["joyLikelihood"] as? String == "VERY_LIKELY")
      #expect(face["sorrowLikelihood"] as? String == "UNKNOWN")
    }
    engine.shutdown()
  }

  /// Google's left is the viewer's, its roll is clockwise and its pan toward the image's
  /// right: in the mirrored photo every LEFT_ landmark is where the RIGHT_ one was, mirrored,
  /// roll and pan change sign and tilt stays.
  @Test func leftRightAndTheAnglesFollowGoogle() async throws {
    let engine = try F.engine()
    let upright = try DecodedImage(encoded: F.astronaut).image
    var flipped = [UInt8](repeating: 0, count: upright.width * upright.height * 3)
    for y in 0..<upright.height {
      for x in 0..<upright.width {
        for c in 0..<3 {
          flipped[(y * upright.width + upright.width - 1 - x) * 3 + c] = upright.pixels[(y * upright.width + x) * 3 + c]
        }
      }
    }
    let mirror = try PNG.encode(MPImage(width: upright.width, height: upright.height, rgb: flipped))
    try await makeApplication(engine: engine).test(.router) { client in
      let response = try await Self.annotate(
        client, #"{"requests": [\#(Self.request(F.astronaut)), \#(Self.request(mirror))]}"#)
      let faces = try Self.responses(response).map {
        try #require(($0["faceAnnotations"] as? [[String: Any]])?.first)
      }
      func points(_ face: [String: Any]) throws -> [String: (x: Double, y: Double)] {
        var out: [String: (x: Double, y: Double)] = [:]
        for landmark in try #require(face["landmarks"] as? [[String: Any]]) {
          let position = try #require(landmark["position"] as? [String: Double])
          out[try #require(landmark["type"] as? String)] = (position["x"]!, position["y"]!)
        }
        return out
      }
      let (a, b) = (try points(faces[0]), try points(faces[1]))
      // Upright and facing the camera: each LEFT_ point lies left of its RIGHT_ twin.
      #expect(a["LEFT_EYE"]!.x < a["RIGHT_EYE"]!.x && a["MOUTH_LEFT"]!.x < a["MOUTH_RIGHT"]!.x)
      #expect(a["LEFT_EYE_LEFT_CORNER"]!.x < a["LEFT_EYE_RIGHT_CORNER"]!.x)
      #expect(a["NOSE_BOTTOM_LEFT"]!.x < a["NOSE_BOTTOM_RIGHT"]!.x)
      let eyes = a["RIGHT_EYE"]!.x - a["LEFT_EYE"]!.x
      for (name, p) in a {
        let twin = name.replacingOccurrences(of: "LEFT", with: "#").replacingOccurrences(of: "RIGHT", with: "LEFT")
          .replacingOccurrences(of: "#", with: "RIGHT")
        let q = try #require(b[twin])
        let (dx, dy) = (abs(p.x - (Double(upright.width) - q.x)), abs(p.y - q.y))
        #expect(dx < 0.1 * eyes && dy < 0.1 * eyes, "\(name) ↔ \(twin): \(dx), \(dy) px off, eyes \(eyes) px apart")
      }
      func angle(_ face: [String: Any], _ name: String) -> Double { face[name] as! Double }
      #expect(abs(angle(faces[0], "rollAngle") + angle(faces[1], "rollAngle")) < 2)
      #expect(abs(angle(faces[0], "panAngle") + angle(faces[1], "panAngle")) < 3)
      #expect(abs(angle(faces[0], "tiltAngle") - angle(faces[1], "tiltAngle")) < 3)
      // Roll follows the eye line, clockwise on screen.
      let line = atan2(a["RIGHT_EYE"]!.y - a["LEFT_EYE"]!.y, a["RIGHT_EYE"]!.x - a["LEFT_EYE"]!.x) * 180 / .pi
      #expect(abs(angle(faces[0], "rollAngle") - line) < 5, "roll \(angle(faces[0], "rollAngle")), eye line \(line)")
    }
    engine.shutdown()
  }

  /// One bad image never fails the others: each gets its own `error`, in order.
  @Test func aMixedBatchAnswersEachImage() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.router) { client in
      let good = Self.request(F.astronaut)
      let batch = [
        good, Self.request(Array("not an image".utf8)), Self.request(F.astronaut, features: #"[{"type": 4}]"#),
        #"{"image": {"source": {"imageUri": "https://example.com/a.jpg"}}, "features": [{"type": 1}]}"#,
        Self.request(F.astronaut, features: #"[{"type": "FACE_DETECTION", "maxResults": "1"}]"#),
        Self.request(F.astronaut, features: #"[{"type": "LABEL_DETECTION"}]"#),
        Self.request(F.astronaut, features: "[]"),
        #"{"image": {"content": "iVBO-w0K"}, "features": [{"type": 1}]}"#,
        Self.request(F.astronaut, features: #"[{"type": 1, "max_results": -1}]"#),
        Self.request(F.astronaut, features: #"[{"type": 8}]"#),
        #"{"image": {"content": "iVBO", "source": {"gcsImageUri": "gs://b/o"}}, "features": [{"type": 1}]}"#,
        Self.request(F.astronaut, features: #"[{"maxResults": 2}]"#),
        #"{"image": {"content": "\#(Data(F.astronaut).base64EncodedString())", "source": {}}, "features": [{"type": 1}]}"#,
      ]
      let responses = try Self.responses(
        try await Self.annotate(client, #"{"requests": [\#(batch.joined(separator: ", "))], "imageContext": {}}"#))
      #expect(responses.count == batch.count)
      let codes = responses.map { ($0["error"] as? [String: Any])?["code"] as? Int }
      #expect(codes == [nil, 3, 12, 12, nil, 12, 3, 3, 3, 3, 3, 3, nil], "\(responses)")
      for i in [0, 4, 12] { #expect((responses[i]["faceAnnotations"] as? [Any])?.count == 1) }
      let messages = responses.compactMap { ($0["error"] as? [String: Any])?["message"] as? String }
      #expect(messages.allSatisfy { !$0.isEmpty })
      #expect(messages[0].hasPrefix("Bad image data"))
      #expect(messages[1] == "visage-server answers FACE_DETECTION only, not LABEL_DETECTION")
      #expect(messages.contains { $0.contains("fetches nothing") })
    }
    engine.shutdown()
  }

  /// Fields as proto3's JSON mapping reads them: `bytes` in URL-safe base64 without padding,
  /// `maxResults` a whole number within int32; an empty `content` is named as such.
  @Test func fieldsAreReadAsProto3JSONReadsThem() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.router) { client in
      let urlSafe = Data(F.astronaut).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
      let batch = [
        #"{"image": {"content": "\#(urlSafe)"}, "features": [{"type": 1, "maxResults": 2.0}]}"#,
        #"{"image": {"content": ""}, "features": [{"type": 1}]}"#,
      ]
      let responses = try Self.responses(
        try await Self.annotate(client, #"{"requests": [\#(batch.joined(separator: ", "))]}"#))
      #expect((responses[0]["faceAnnotations"] as? [Any])?.count == 1, "\(responses[0])")
      let message = ((responses[1]["error"] as? [String: Any])?["message"] as? String) ?? ""
      #expect(message.contains("image.content is empty"), "\(message)")
      for bad in ["2.5", "1000000000000", #""two""#] {
        let features = #"[{"type": 1, "maxResults": \#(bad)}]"#
        let body = #"{"requests": [\#(Self.request(F.astronaut, features: features))]}"#
        let response = try await Self.annotate(client, body)
        let text = String(buffer: response.body)
        #expect(
          response.status == .badRequest && text.contains("maxResults") && text.contains("int32"), "\(bad): \(text)")
      }
    }
    engine.shutdown()
  }

  /// `maxResults` bounds the faces; a photo with none answers `{}`.
  @Test func maxResultsBoundsTheFaces() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.router) { client in
      let empty = try PNG.encode(MPImage(width: 64, height: 48, rgb: [UInt8](repeating: 90, count: 64 * 48 * 3)))
      let batch = [
        Self.request(F.crowd), Self.request(F.crowd, features: #"[{"type": 1, "maxResults": 1}]"#),
        Self.request(empty),
      ]
      let responses = try Self.responses(
        try await Self.annotate(client, #"{"requests": [\#(batch.joined(separator: ", "))]}"#))
      let counts = responses.map { ($0["faceAnnotations"] as? [Any])?.count }
      #expect((counts[0] ?? 0) >= 2 && counts[1] == 1 && counts[2] == nil, "\(counts)")
      #expect(responses[2].isEmpty)
    }
    engine.shutdown()
  }

  /// A real group photo's small faces are all answered, as Cloud Vision answers them: the
  /// tenth-of-the-picture rule of ML Kit left none of these ten (1317×342, faces of 16-34 px).
  @Test func aGroupPhotosSmallFacesAreFound() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.router) { client in
      let group = F.bytes("Tests/Fixtures/crowd/group/TeamMeeting2019.jpg")
      let batch = [Self.request(group), Self.request(group, features: #"[{"type": 1, "maxResults": 100}]"#)]
      let responses = try Self.responses(
        try await Self.annotate(client, #"{"requests": [\#(batch.joined(separator: ", "))]}"#))
      let counts = responses.map { ($0["faceAnnotations"] as? [Any])?.count ?? 0 }
      #expect(counts[0] == 10 && counts[1] >= 30, "\(counts)")
    }
    engine.shutdown()
  }

  /// A body that is no batch is refused whole, in the envelope.
  @Test func aBadBatchIsRefusedWhole() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.router) { client in
      let seventeen = Array(repeating: #"{"features": [{"type": 1}]}"#, count: 17).joined(separator: ",")
      for body in [
        "", "not json", "[]", #"{"requests": []}"#, "{}", #"{"requests": [\#(seventeen)]}"#,
        #"{"requests": [{"features": [{"type": {}}]}]}"#,
      ] {
        let response = try await Self.annotate(client, body)
        #expect(response.status == .badRequest, "\(body)")
        #expect(try F.envelope(response).status == "INVALID_ARGUMENT")
      }
      let get = try await client.execute(uri: "/v1/images:annotate", method: .get)
      #expect(get.status == .methodNotAllowed && get.headers[.allow] == "POST")
    }
    engine.shutdown()
  }

  /// A key in `?key=` or `x-goog-api-key`, as Google's clients send it, is a key.
  @Test func keysComeAsGooglesClientsSendThem() async throws {
    let engine = try F.engine { $0.apiKeys = ["s3cret"] }
    try await makeApplication(engine: engine).test(.router) { client in
      let body = #"{"requests": [\#(Self.request(F.astronaut))]}"#
      #expect(try await Self.annotate(client, body).status == .unauthorized)
      #expect(try await Self.annotate(client, body, uri: "/v1/images:annotate?key=wrong").status == .unauthorized)
      #expect(try await Self.annotate(client, body, uri: "/v1/images:annotate?key=s3cret").status == .ok)
      let goog = try await client.execute(
        uri: "/v1/images:annotate", method: .post, headers: [HTTPField.Name("x-goog-api-key")!: "s3cret"],
        body: ByteBuffer(string: body))
      #expect(goog.status == .ok)
      let detect = try await client.execute(
        uri: "/v1/detect?key=s3cret", method: .post, body: ByteBuffer(bytes: F.astronaut))
      #expect(detect.status == .ok, "`key` is not a task option")
      // The page itself needs no key: it asks for one when the API answers 401.
      #expect(try await client.execute(uri: "/", method: .get).status == .ok)
    }
    engine.shutdown()
  }

  /// The page's files, and the mesh's edges from the library's tables.
  @Test func thePageIsServed() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.router) { client in
      for (path, type) in [("/", "text/html"), ("/app.js", "text/javascript"), ("/style.css", "text/css")] {
        let response = try await client.execute(uri: path, method: .get)
        #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix(type) == true, "\(path)")
        #expect(response.body.readableBytes > 100, "\(path)")
      }
      for method: HTTPRequest.Method in [.post, .trace] {
        let response = try await client.execute(uri: "/app.js", method: method)
        #expect(response.status == .methodNotAllowed && response.headers[.allow] == "GET", "\(method)")
      }
      // HEAD is answered as GET, without the body.
      let head = try await client.execute(uri: "/app.js", method: .head)
      #expect(head.status == .ok && head.headers[.contentType]?.hasPrefix("text/javascript") == true)
      #expect(head.body.readableBytes == 0)
      let mesh = try F.object(try await client.execute(uri: "/mesh-connections.json", method: .get).body)
      #expect((mesh["tesselation"] as? [[Int]])?.count == FaceLandmarksConnections.tesselation.count)
      #expect((mesh["leftIris"] as? [[Int]])?.first == [474, 475])
    }
    engine.shutdown()
  }

  /// `head-pose=true` adds each face's angles, the analyzer's for the same face.
  @Test func landmarkGivesHeadPosesWhenAsked() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.router) { client in
      let posed = try F.object(
        try await client.execute(
          uri: "/v1/landmark?head-pose=true", method: .post, body: ByteBuffer(bytes: F.astronaut)
        )
        .body)
      let pose = try #require((posed["faceHeadPoses"] as? [[String: Double]])?.first)
      #expect(posed["facialTransformationMatrixes"] == nil)
      let analyzed = try F.object(
        try await client.execute(uri: "/v1/analyze", method: .post, body: ByteBuffer(bytes: F.astronaut)).body)
      let face = try #require((analyzed["faces"] as? [[String: Any]])?.first)
      #expect(
        pose["x"] == face["headEulerAngleX"] as? Double && pose["y"] == face["headEulerAngleY"] as? Double
          && pose["z"] == face["headEulerAngleZ"] as? Double)
      let plain = try F.object(
        try await client.execute(uri: "/v1/landmark", method: .post, body: ByteBuffer(bytes: F.astronaut)).body)
      #expect(plain["faceHeadPoses"] == nil)
    }
    engine.shutdown()
  }
}
