import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import HummingbirdWSTesting
import NIOCore
import Testing
import VisageRequests

@testable import VisageServer

/// The server on a real socket: the live stream, many clients at once, and clients that
/// misbehave.
@Suite(.serialized, .timeLimit(.minutes(5))) struct LiveAndLoadTests {
  typealias F = ServerFixtures

  /// Each frame gets one reply, in order: a result or `"dropped": true`.
  @Test(arguments: ["landmark", "detect", "analyze"])
  func everyLiveFrameIsAnsweredInOrder(task: String) async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.live) { client in
      let options = task == "landmark" ? "&blendshapes=true" : ""
      _ = try await within(60, "a live stream") {
        try await client.ws("/v1/live?task=\(task)\(options)", configuration: .init(maxFrameSize: 1 << 22)) {
          inbound, outbound, _ in
          // Two rounds of the clip sent at once: the task is busy for most of them.
          let frames = F.panFrames + F.panFrames
          for frame in frames { try await outbound.write(.binary(ByteBuffer(bytes: frame))) }
          var replies: [[String: Any]] = []
          for try await message in inbound.messages(maxSize: 1 << 24) {
            guard case .text(let text) = message else { continue }
            replies.append(try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]))
            if replies.count == frames.count { break }
          }
          #expect(replies.map { $0["source"] as? String } == (0..<frames.count).map { "frame#\($0)" })
          let timestamps = replies.compactMap { $0["timestampMs"] as? Int }
          #expect(timestamps.count == frames.count && zip(timestamps, timestamps.dropFirst()).allSatisfy { $0 < $1 })
          let answered = replies.filter { $0["dropped"] == nil }
          let key = ["landmark": "faceLandmarks", "detect": "detections", "analyze": "faces"][task]!
          // The clip pans across a face: frames answered have it, all but a few at its edges.
          let faces = answered.map { ($0[key] as? [Any])?.count }
          #expect(
            !answered.isEmpty && faces.allSatisfy { $0 != nil } && faces.filter { $0 == 1 }.count * 2 >= faces.count,
            "\(faces)")
          // The first frame finds the task idle, so it is never dropped.
          #expect(replies[0]["dropped"] == nil)
          #expect(replies.allSatisfy { $0["error"] == nil })
        }
      }
    }
    engine.shutdown()
  }

  /// `tracking=true` numbers a stream's faces: the pan clip's one face keeps one ID, in the
  /// detector and the landmarker, and dropped frames carry the key too.
  @Test(arguments: ["detect", "landmark"])
  func liveTrackingNumbersFaces(task: String) async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.live) { client in
      _ = try await within(60, "a tracked live stream") {
        try await client.ws("/v1/live?task=\(task)&tracking=true", configuration: .init(maxFrameSize: 1 << 22)) {
          inbound, outbound, _ in
          // One frame in flight, as the page sends them: none is dropped, so the face moves
          // little from one answered frame to the next.
          var replies = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
          var ids: [[Int]] = []
          for frame in F.panFrames {
            try await outbound.write(.binary(ByteBuffer(bytes: frame)))
            guard case .text(let text) = try await replies.next() else { break }
            let reply = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            ids.append(try #require(reply["faceTrackingIds"] as? [Int], "\(text.prefix(200))"))
          }
          let seen = ids.filter { !$0.isEmpty }
          #expect(
            seen.count * 2 >= F.panFrames.count && seen.allSatisfy { $0 == seen[0] } && seen[0].count == 1, "\(ids)")
        }
      }
    }
    engine.shutdown()
  }

  /// A frame that is not an image, and one over `--max-live-pixels` (here 512x512's worth),
  /// are answered in the envelope; the stream goes on.
  @Test func aLiveStreamAnswersBadFramesAndOptionsInTheEnvelope() async throws {
    let engine = try F.engine { $0.maxLivePixels = 512 * 512 }
    try await makeApplication(engine: engine).test(.live) { client in
      _ = try await within(60, "the stream with a bad frame") {
        try await client.ws("/v1/live?task=detect", configuration: .init(maxFrameSize: 1 << 22)) {
          inbound, outbound, _ in
          try await outbound.write(.binary(ByteBuffer(bytes: Array("not an image".utf8))))
          try await outbound.write(.binary(ByteBuffer(bytes: F.crowd)))
          try await outbound.write(.binary(ByteBuffer(bytes: F.panFrames[0])))
          var replies: [String] = []
          for try await message in inbound.messages(maxSize: 1 << 24) {
            if case .text(let text) = message { replies.append(text) }
            if replies.count == 3 { break }
          }
          #expect(replies[0].contains(#""source": "frame#0""#) && replies[0].contains(#""code": 415"#))
          #expect(
            replies[1].contains(#""source": "frame#1""#) && replies[1].contains(#""code": 422"#)
              && replies[1].contains("1280x960"), "\(replies[1])")
          #expect(replies[2].contains(#""source": "frame#2""#) && replies[2].contains(#""detections": [{"#))
        }
      }
      // The first line of the answer to an upgrade asked with `query`.
      let port = try #require(client.port)
      func upgrade(_ query: String) async throws -> String {
        try await blocking { () -> String in
          let socket = try RawClient(port: port)
          try socket.send(
            "GET /v1/live?\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
          return socket.receive(timeout: 5)
        }
      }
      // Refused at the upgrade: Hummingbird's bare 400.
      for query in ["task=shoot", "task=landmark&num-faces=0", "", "task=detect&tracking=maybe"] {
        let reply = try await upgrade(query)
        #expect(reply.hasPrefix("HTTP/1.1 400"), "\(query): \(reply)")
      }
      // Keys percent-decoded as on the other routes: `num%2Dfaces` is `num-faces`.
      let accepted = try await upgrade("task=landmark&num%2Dfaces=2")
      #expect(accepted.hasPrefix("HTTP/1.1 101"), "\(accepted)")
    }
    engine.shutdown()
  }

  /// A client that sends frames and vanishes without closing: the server goes on.
  @Test func aVanishingLiveClientLeavesTheServerWell() async throws {
    let engine = try F.engine { $0.maxLiveStreams = 3 }
    try await makeApplication(engine: engine).test(.live) { client in
      let port = try #require(client.port)
      for _ in 0..<3 {
        let reply = try await blocking { () -> String in
          let socket = try RawClient(port: port)
          let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
          try socket.send(
            "GET /v1/live?task=landmark HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
          )
          let reply = socket.receive(timeout: 5)
          // One masked binary frame holding a JPEG, then gone mid-frame.
          try socket.send(bytes: WebSocketFrames.maskedBinary(F.panFrames[0]))
          try socket.send(bytes: Array(WebSocketFrames.maskedBinary(F.panFrames[1]).prefix(100)))
          socket.close()
          return reply
        }
        #expect(reply.hasPrefix("HTTP/1.1 101"), "\(reply)")
      }
      // Their live streams were closed, so others may open.
      for _ in 0..<50 where engine.liveStreamsOpen > 0 { try await Task.sleep(for: .milliseconds(100)) }
      #expect(engine.liveStreamsOpen == 0)
      _ = try await within(60, "a live stream") {
        try await client.ws("/v1/live?task=detect", configuration: .init(maxFrameSize: 1 << 22)) {
          inbound, outbound, _ in
          try await outbound.write(.binary(ByteBuffer(bytes: F.panFrames[2])))
          for try await message in inbound.messages(maxSize: 1 << 24) {
            if case .text(let text) = message {
              #expect(text.contains(#""detections""#))
              break
            }
          }
        }
      }
      let response = try await client.execute(uri: "/v1/detect", method: .post, body: ByteBuffer(bytes: F.astronaut))
      #expect(response.status == .ok)
    }
    engine.shutdown()
  }

  /// 64 clients at once for a few seconds: every request answered 200 or 503, none lost or
  /// hung; memory bounded.
  @Test func sixtyFourClientsAreEachAnswered() async throws {
    let engine = try F.engine {
      $0.threads = 2
      $0.queueDepth = 8
    }
    let before = F.peakResidentBytes()
    try await makeApplication(engine: engine).test(.live) { client in
      let port = try #require(client.port)
      let deadline = ContinuousClock.now + .seconds(6)
      let counts = try await withThrowingTaskGroup(of: [Int: Int].self) { group in
        for i in 0..<64 {
          group.addTask {
            var counts: [Int: Int] = [:]
            let body = i % 4 == 0 ? F.crowd : F.panFrames[i % 12]
            while ContinuousClock.now < deadline {
              let status = try await blocking { try RawClient.post(port: port, path: "/v1/landmark", body: body) }
              counts[status, default: 0] += 1
            }
            return counts
          }
        }
        return try await group.reduce(into: [Int: Int]()) { all, one in all.merge(one, uniquingKeysWith: +) }
      }
      #expect(Set(counts.keys).isSubset(of: [200, 503]), "\(counts)")
      #expect((counts[200] ?? 0) > 10 && (counts[503] ?? 0) > 0, "\(counts)")
      let response = try await client.execute(uri: "/metrics", method: .get)
      #expect(String(buffer: response.body).contains("visage_requests_in_flight 0"))
    }
    let peak = F.peakResidentBytes()
    // 10 admitted requests hold at most 10 bodies and 2 decoded photos: far below 1 GB.
    #expect(peak - before < 1 << 30, "peak RSS grew by \(peak - before) bytes")
    engine.shutdown()
  }

  /// A client that sends its headers a byte at a time, and one that stops mid-upload: each is
  /// cut off, and the others are answered meanwhile.
  @Test func slowAndBrokenUploadsHoldNoSlot() async throws {
    let engine = try F.engine {
      $0.idleTimeoutSeconds = 3
      $0.bodyTimeoutSeconds = 1
      $0.threads = 1
      $0.queueDepth = 2
    }
    try await makeApplication(engine: engine).test(.live) { client in
      let port = try #require(client.port)
      // Slowloris: a header byte every 300 ms, never finishing.
      async let slow = blocking { () -> Bool in
        let socket = try RawClient(port: port)
        let start = ContinuousClock.now
        for byte in "POST /v1/detect HTTP/1.1\r\nHost: x\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaa".utf8 {
          guard (try? socket.send(bytes: [byte])) != nil else { break }
          if socket.isClosed() { break }
          Thread.sleep(forTimeInterval: 0.3)
        }
        return ContinuousClock.now - start < .seconds(6)
      }
      // Mid-upload: headers promise 1 MB, half comes, then the client is gone.
      try await blocking {
        let broken = try RawClient(port: port)
        try broken.send("POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
        try broken.send(bytes: [UInt8](repeating: 0xFF, count: 500_000))
        broken.close()
      }
      // A body that stalls: its admission is given back after the body timeout.
      let stalledReply = try await blocking { () -> String in
        let stalled = try RawClient(port: port)
        try stalled.send("POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc")
        return stalled.receive(timeout: 6)
      }
      #expect(stalledReply.hasPrefix("HTTP/1.1 408"), "\(stalledReply)")
      // Connections of their own: the test client's would be closed by the short idle timeout.
      for _ in 0..<3 {
        #expect(try await blocking { try RawClient.post(port: port, path: "/v1/detect", body: F.astronaut) } == 200)
      }
      #expect(try await slow, "the slow client was not cut off")
      // Neither the broken upload nor the stalled one keeps its admission or its body bytes.
      for _ in 0..<50 where engine.inFlight > 0 || engine.bodyBytesHeld > 0 {
        try await Task.sleep(for: .milliseconds(100))
      }
      #expect(engine.inFlight == 0 && engine.bodyBytesHeld == 0, "\(engine.bodyBytesHeld) body bytes held")
      // A request NIO cannot parse (a NUL byte in a header) is closed at once, not left open.
      let unparsable = try await blocking { () -> Bool in
        let socket = try RawClient(port: port)
        try socket.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\u{0}b\r\n\r\n")
        _ = socket.receive(timeout: 3)
        return socket.isClosed()
      }
      #expect(unparsable, "a request that cannot be parsed left its connection open")
    }
    engine.shutdown()
  }
}
