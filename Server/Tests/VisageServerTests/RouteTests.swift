import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import Visage
import VisageImageIO
import VisageReports

@testable import VisageRequests
@testable import VisageServer

/// Every route and body form, and every error, through the router (no socket).
@Suite(.timeLimit(.minutes(5))) struct RouteTests {
  typealias F = ServerFixtures

  /// The response for an image is the object the command line's JSON line gives for it: the
  /// same library call, encoded by the same `ImageReport`.
  @Test func detectAnswersWithTheCommandLinesObject() async throws {
    let engine = try F.engine()
    let detector = try FaceDetector(
      options: TaskRequest(kind: .detect, query: []).detectorOptions(models: F.models, handler: nil))
    let decoded = try DecodedImage(encoded: F.astronaut)
    let expected = try report(decoded, source: "image", result: detector.detect(image: decoded.image)).description
    try await makeApplication(engine: engine).test(.router) { client in
      // curl --data-binary sends application/x-www-form-urlencoded: the bytes are sniffed.
      for type in ["image/png", "application/octet-stream", "image/jpeg", "application/x-www-form-urlencoded"] {
        try await client.execute(
          uri: "/v1/detect", method: .post, headers: [.contentType: type], body: ByteBuffer(bytes: F.astronaut)
        ) { response in
          #expect(response.status == .ok)
          #expect(String(buffer: response.body) == expected)
        }
      }
    }
    engine.shutdown()
  }

  @Test func theThreeBodyFormsGiveTheSameFaces() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.router) { client in
      let raw = try await client.execute(uri: "/v1/landmark", method: .post, body: ByteBuffer(bytes: F.astronaut))
      let boundary = "----visage-test-boundary"
      let form = try await client.execute(
        uri: "/v1/landmark", method: .post, headers: [.contentType: "multipart/form-data; boundary=\"\(boundary)\""],
        body: F.multipart(F.astronaut, boundary: boundary))
      let json = try await client.execute(
        uri: "/v1/landmark", method: .post, headers: [.contentType: "application/json"],
        body: ByteBuffer(string: #"{"image": {"content": "\#(Data(F.astronaut).base64EncodedString())"}}"#))
      for response in [raw, form, json] { #expect(response.status == .ok) }
      let faces = try [raw, form, json].map { try #require(F.object($0.body)["faceLandmarks"] as? [[Any]]) }
      #expect(faces.map(\.count) == [1, 1, 1] && faces.allSatisfy { $0[0].count == 478 })
      // A multipart file's name is the response's source.
      #expect(try F.object(form.body)["source"] as? String == "photo.png")
      #expect(String(buffer: raw.body).dropFirst(20) == String(buffer: json.body).dropFirst(20))
    }
    engine.shutdown()
  }

  @Test func queryParametersAreTheSubcommandsOptions() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.router) { client in
      let asked = try await client.execute(
        uri: "/v1/landmark?num-faces=4&blendshapes=true&transformation-matrices&detector-range=full", method: .post,
        body: ByteBuffer(bytes: F.astronaut))
      #expect(asked.status == .ok)
      let object = try F.object(asked.body)
      #expect((object["faceBlendshapes"] as? [[Any]])?.first?.count == 52)
      #expect((object["facialTransformationMatrixes"] as? [Any])?.count == 1)
      let plain = try F.object(
        try await client.execute(uri: "/v1/landmark", method: .post, body: ByteBuffer(bytes: F.astronaut)).body)
      #expect(plain["faceBlendshapes"] == nil && plain["facialTransformationMatrixes"] == nil)
      let analyzed = try F.object(
        try await client.execute(
          uri: "/v1/analyze?landmarks=true&classification=true&contours=true&performance=accurate", method: .post,
          body: ByteBuffer(bytes: F.astronaut)
        ).body)
      let face = try #require((analyzed["faces"] as? [[String: Any]])?.first)
      #expect(face["landmarks"] != nil && face["contours"] != nil && face["smilingProbability"] != nil)
      let rotated = try F.object(
        try await client.execute(
          uri: "/v1/detect?range=all&any-rotation=true&min-detection-confidence=0.4", method: .post,
          body: ByteBuffer(bytes: F.astronaut)
        ).body)
      #expect((rotated["detections"] as? [Any])?.count == 1)
    }
    engine.shutdown()
  }

  @Test func exifOrientationIsHonouredAsTheCommandLineHonoursIt() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.router) { client in
      let upright = try F.object(
        try await client.execute(uri: "/v1/detect", method: .post, body: ByteBuffer(bytes: F.exifSix)).body)
      #expect(upright["orientation"] as? String == "right" && upright["exifOrientation"] as? Int == 6)
      let stored = try F.object(
        try await client.execute(uri: "/v1/detect?ignore-exif=true", method: .post, body: ByteBuffer(bytes: F.exifSix))
          .body)
      #expect(stored["orientation"] as? String == "up" && stored["exifOrientation"] as? Int == 6)
      #expect(upright["width"] as? Int == stored["height"] as? Int)
    }
    engine.shutdown()
  }

  @Test func badOptionsAreNamed() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.router) { client in
      let cases: [(String, String)] = [
        ("/v1/landmark?num-face=2", "unknown option `num-face`"),
        ("/v1/landmark?num-faces=0", "`num-faces` takes a whole number in 1...1000"),
        ("/v1/detect?min-detection-confidence=2", "`min-detection-confidence` takes a number in 0...1"),
        ("/v1/detect?min-detection-confidence=1.0000000000000002", "takes a number in 0...1"),
        ("/v1/detect?min-detection-confidence=0x1p-1", "takes a number in 0...1"),
        ("/v1/detect?min-detection-confidence=%2B0.5", "takes a number in 0...1"),
        ("/v1/detect?range=far", "`range` takes short, full, all"),
        ("/v1/detect?any-rotation=yes", "`any-rotation` takes true or false"),
        ("/v1/detect?model=/etc/passwd", "`model` is a command-line option the server does not take"),
        ("/v1/analyze?tracking=true", "`tracking` needs a stream"),
        ("/v1/detect?range=full&range=all", "`range` is given twice"),
      ]
      for (uri, words) in cases {
        let response = try await client.execute(uri: uri, method: .post, body: ByteBuffer(bytes: F.astronaut))
        #expect(response.status == .badRequest, "\(uri)")
        let envelope = try F.envelope(response)
        #expect(envelope.status == "INVALID_ARGUMENT" && envelope.message.contains(words), "\(envelope.message)")
      }
    }
    engine.shutdown()
  }

  @Test func everyErrorHasTheEnvelope() async throws {
    let engine = try F.engine {
      $0.maxBodyBytes = 1 << 20
      $0.maxPixels = 300_000
    }
    var webp: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8)
    webp += [UInt8](repeating: 0, count: 32)
    let heic: [UInt8] = [0, 0, 0, 24] + Array("ftypheic".utf8) + [UInt8](repeating: 0, count: 16)
    let cases: [(String, HTTPRequest.Method, HTTPFields, [UInt8], HTTPResponse.Status, String)] = [
      ("/v2/detect", .post, [:], F.astronaut, .notFound, "no route"),
      ("/v1/detect", .get, [:], [], .methodNotAllowed, "/v1/detect takes POST"),
      ("/healthz", .post, [:], [], .methodNotAllowed, "takes GET"),
      ("/v1/detect", .post, [:], [UInt8](repeating: 0xFF, count: (1 << 20) + 1), .contentTooLarge, "over the limit"),
      ("/v1/detect", .post, [:], webp, .unsupportedMediaType, "the image is WebP"),
      ("/v1/detect", .post, [:], heic, .unsupportedMediaType, "the image is HEIC"),
      ("/v1/detect", .post, [:], Array("hello".utf8), .unsupportedMediaType, "not a PNG or JPEG"),
      (
        "/v1/detect", .post, [.contentType: "text/plain"], Array("hello".utf8), .unsupportedMediaType,
        "not a PNG or JPEG"
      ),
      ("/v1/detect", .post, [:], Array(F.crowd.prefix(2000)), .unprocessableContent, "JPEG"),
      ("/v1/detect", .post, [:], F.crowd, .unprocessableContent, "pixels"),
      ("/v1/detect", .post, [:], [], .badRequest, "the body is empty"),
      (
        "/v1/detect", .post, [.contentType: "application/json"], Array(#"{"image": {"content": "iVBO-w0K"}}"#.utf8),
        .badRequest, "'-' at offset 4 (base64url"
      ),
      (
        "/v1/detect", .post, [.contentType: "application/json"],
        Array(#"{"image": {"source": {"imageUri": "http://example.com/a.jpg"}}}"#.utf8), .badRequest, "fetches nothing"
      ),
      ("/v1/detect", .post, [.contentType: "application/json"], Array("{".utf8), .badRequest, "not a JSON object"),
      (
        "/v1/detect", .post, [.contentType: "multipart/form-data; boundary=b"],
        Array("--b\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nx\r\n--b--\r\n".utf8), .badRequest,
        "no field named image (its fields: \"file\")"
      ),
      (
        "/v1/detect", .post, [.contentType: "multipart/form-data; boundary=b"],
        Array("--b\r\nContent-Disposition: form-data; name=\"image\"\r\n\r\nxx".utf8), .badRequest, "truncated upload"
      ),
    ]
    try await makeApplication(engine: engine).test(.router) { client in
      for (uri, method, headers, body, status, words) in cases {
        let response = try await client.execute(
          uri: uri, method: method, headers: headers, body: ByteBuffer(bytes: body))
        #expect(response.status == status, "\(uri) \(words)")
        let envelope = try F.envelope(response)
        #expect(envelope.message.contains(words), "\(envelope.message)")
        #expect(envelope.status == RequestError.statusName(Int(status.code)))
      }
      let wrong = try await client.execute(uri: "/v1/landmark", method: .put)
      #expect(wrong.headers[.allow] == "POST")
    }
    engine.shutdown()
  }

  @Test func aFullQueueIsAnswered503WithRetryAfter() async throws {
    let engine = try F.engine {
      $0.threads = 1
      $0.queueDepth = 1
    }
    // Every admission taken, as by two slow requests.
    #expect(engine.admit() && engine.admit() && !engine.admit())
    try await makeApplication(engine: engine).test(.router) { client in
      let response = try await client.execute(uri: "/v1/detect", method: .post, body: ByteBuffer(bytes: F.astronaut))
      #expect(response.status == .serviceUnavailable && response.headers[.retryAfter] == "1")
      #expect(try F.envelope(response).status == "UNAVAILABLE")
      engine.release()
      engine.release()
      let after = try await client.execute(uri: "/v1/detect", method: .post, body: ByteBuffer(bytes: F.astronaut))
      #expect(after.status == .ok)
      let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
      #expect(metrics.contains(#"visage_http_requests_total{route="/v1/detect",status="503"} 1"#))
      #expect(metrics.contains("visage_rejections_total 1"))
    }
    engine.shutdown()
  }

  @Test func apiKeysAreRequiredWhenConfigured() async throws {
    let engine = try F.engine { $0.apiKeys = ["first-key", "second-key"] }
    try await makeApplication(engine: engine).test(.router) { client in
      for headers: HTTPFields in [
        [:], [.xAPIKey: "first-ke"], [.xAPIKey: "first-keyy"], [.authorization: "Basic Zmlyc3Qta2V5"],
      ] {
        let response = try await client.execute(
          uri: "/v1/detect", method: .post, headers: headers, body: ByteBuffer(bytes: F.astronaut))
        #expect(response.status == .unauthorized)
        #expect(try F.envelope(response).status == "UNAUTHENTICATED")
      }
      for headers: HTTPFields in [[.xAPIKey: "first-key"], [.authorization: "Bearer second-key"]] {
        let response = try await client.execute(
          uri: "/v1/detect", method: .post, headers: headers, body: ByteBuffer(bytes: F.astronaut))
        #expect(response.status == .ok)
      }
      // Health needs no key.
      #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
    }
    #expect(APIKeyMiddleware<BasicRequestContext>.matches(Array("abc".utf8), [Array("abc".utf8)]))
    #expect(!APIKeyMiddleware<BasicRequestContext>.matches(Array("abd".utf8), [Array("abc".utf8)]))
    #expect(!APIKeyMiddleware<BasicRequestContext>.matches([], [Array("abc".utf8)]))
    engine.shutdown()
  }

  @Test func healthReadinessAndMetrics() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.router) { client in
      #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
      #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)
      _ = try await client.execute(uri: "/v1/analyze", method: .post, body: ByteBuffer(bytes: F.astronaut))
      let metrics = try await client.execute(uri: "/metrics", method: .get)
      #expect(metrics.headers[.contentType]?.hasPrefix("text/plain") == true)
      let text = String(buffer: metrics.body)
      for name in [
        #"visage_http_requests_total{route="/v1/analyze",status="200"} 1"#,
        "visage_http_request_duration_seconds_bucket",
        "visage_requests_in_flight", "visage_queue_depth", "visage_rejections_total",
        "visage_live_frames_dropped_total",
        #"visage_model_seconds_count{task="analyze"} 1"#,
      ] {
        #expect(text.contains(name), "\(name)")
      }
      engine.drain()
      let draining = try await client.execute(uri: "/readyz", method: .get)
      #expect(draining.status == .serviceUnavailable)
      let refused = try await client.execute(uri: "/v1/detect", method: .post, body: ByteBuffer(bytes: F.astronaut))
      #expect(refused.status == .serviceUnavailable)
      #expect(try F.envelope(refused).message.contains("shutting down"))
    }
    engine.shutdown()
  }

  /// A thousand bad images, every kind of damage, then a good one: the server still answers.
  @Test func aThousandBadImagesThenAGoodOne() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.router) { client in
      var generator = SplitMix64(seed: 43)
      var statuses: [Int: Int] = [:]
      for i in 0..<1000 {
        var bytes = i % 2 == 0 ? F.panFrames[i % 12] : F.astronaut
        switch i % 5 {
        case 0: bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator)))
        case 1:
          for _ in 0..<8 {
            bytes[Int.random(in: 0..<bytes.count, using: &generator)] = .random(in: 0...255, using: &generator)
          }
        case 2:
          bytes = (0..<Int.random(in: 1..<4096, using: &generator)).map { _ in .random(in: 0...255, using: &generator) }
        case 3: bytes.replaceSubrange(8..<min(64, bytes.count), with: [UInt8](repeating: 0xFF, count: 56))
        default: bytes = Array(bytes.prefix(64)) + bytes.suffix(from: bytes.count / 2)
        }
        let response = try await client.execute(uri: "/v1/landmark", method: .post, body: ByteBuffer(bytes: bytes))
        statuses[response.status.code, default: 0] += 1
        #expect(response.status.code < 500, "bad image \(i): \(String(buffer: response.body))")
      }
      let good = try await client.execute(uri: "/v1/landmark", method: .post, body: ByteBuffer(bytes: F.astronaut))
      #expect(good.status == .ok)
      #expect((try F.object(good.body)["faceLandmarks"] as? [Any])?.count == 1)
    }
    engine.shutdown()
  }
}

/// A seeded generator, so that the damaged images are the same on every run.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// The request decoding's fuzz findings (Tests/Fixtures/fuzz/requests), replayed, and the
/// multipart shapes they taught.
@Suite struct RequestDecodingTests {
  @Test func fuzzFindingsAreRefusedNotCrashed() throws {
    let folder = ServerFixtures.root + "/Tests/Fixtures/fuzz/requests"
    let names = try FileManager.default.contentsOfDirectory(atPath: folder)
    #expect(!names.isEmpty)
    for name in names { RawRequest.exercise(ServerFixtures.bytes("Tests/Fixtures/fuzz/requests/" + name)) }
  }

  @Test func multipartPartsWithoutHeadersOrWithTheImageLast() throws {
    let body = Array(
      "--b\r\n\r\nfirst\r\n--b\r\nContent-Disposition: form-data; name=\"image\"\r\n\r\nIMG\r\n--b--\r\n".utf8)
    #expect(try ImageBody(body: body, contentType: "multipart/form-data; boundary=b").bytes == Array("IMG".utf8))
    for broken in ["--b\r\n\r\n", "--b", "--b\r\nX: y", "--b\r\n\r\n--b\r\n\r\n"] {
      #expect(throws: RequestError.self) {
        try ImageBody(body: Array(broken.utf8), contentType: "multipart/form-data; boundary=b")
      }
    }
  }
}

/// The multipart search finds what a naive one finds, in linear time.
@Suite struct MultipartSearchTests {
  @Test func findAgreesWithANaiveSearch() {
    var generator = SplitMix64(seed: 7)
    for _ in 0..<2000 {
      let haystack = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in
        UInt8.random(in: 0...2, using: &generator)
      }
      let needle = (0..<Int.random(in: 1..<5, using: &generator)).map { _ in UInt8.random(in: 0...2, using: &generator)
      }
      let from = Int.random(in: 0...max(0, haystack.count), using: &generator)
      let naive =
        haystack.count - needle.count < from
        ? nil
        : (from...(haystack.count - needle.count)).first {
          Array(haystack[$0..<$0 + needle.count]) == needle
        }
      #expect(Multipart.find(needle, in: haystack, from: from) == naive, "\(needle) in \(haystack) from \(from)")
    }
  }

  /// A body of dashes with a boundary of 70 dashes: 20 MiB searched in well under a second.
  @Test(.timeLimit(.minutes(5))) func dashesWithADashBoundary() throws {
    let boundary = String(repeating: "-", count: 69) + "x"
    let body = [UInt8](repeating: UInt8(ascii: "-"), count: 20 << 20)
    #expect(throws: RequestError.self) {
      try ImageBody(body: body, contentType: "multipart/form-data; boundary=\(boundary)")
    }
    #expect(throws: RequestError.self) {
      try ImageBody(body: [0x2D], contentType: "multipart/form-data; boundary=\(String(repeating: "-", count: 71))")
    }
  }

  /// An image part of 20 MiB of CR bytes, each of which starts a boundary that fails (which
  /// multipart-kit handed back one byte at a time: docs/decisions.md).
  @Test(.timeLimit(.minutes(5))) func carriageReturnsInAnImage() throws {
    let head = Array("--b\r\nContent-Disposition: form-data; name=\"image\"\r\n\r\n".utf8)
    let body = head + [UInt8](repeating: 13, count: 20 << 20) + Array("\r\n--b--\r\n".utf8)
    let clock = ContinuousClock()
    let start = clock.now
    let image = try ImageBody(body: body, contentType: "multipart/form-data; boundary=b")
    #expect(image.bytes.count == 20 << 20 && image.bytes.allSatisfy { $0 == 13 })
    print("multipart: 20 MiB of CR bytes read in \(clock.now - start)")
  }
}
