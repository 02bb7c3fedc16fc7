import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@testable import VisageServer

/// What careless or hostile callers could do that costs the server more than it costs them
/// (issue 55): slow bodies, `Expect: 100-continue`, HTTP that does not parse.
@Suite(.serialized) struct HostileClientTests {
  typealias F = ServerFixtures

  /// Ten connections that promise a photo and send a byte a second hold no copy or queue
  /// place: requests beside them are answered 200 as usual.
  @Test func slowBodiesLeaveOthersAnswered() async throws {
    let engine = try F.engine {
      $0.threads = 1
      $0.queueDepth = 2
    }
    try await makeApplication(engine: engine).test(.live) { client in
      let port = try #require(client.port)
      let slow = try (0..<10).map { _ in try RawClient(port: port) }
      for socket in slow { try socket.send("POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Length: 791555\r\n\r\n") }
      let start = ContinuousClock.now
      for second in 0..<4 {
        for socket in slow { try socket.send(bytes: [0xFF]) }
        // Each second, with ten bodies arriving, a request of its own is answered 200.
        let status = try await blocking { try RawClient.post(port: port, path: "/v1/detect", body: F.astronaut) }
        #expect(status == 200, "second \(second): \(status)")
        #expect(engine.inFlight == 0)
        try await Task.sleep(for: .milliseconds(200))
      }
      #expect(ContinuousClock.now - start < .seconds(30))
      // The ten hold only the bytes they sent.
      #expect(engine.bodyBytesHeld <= 10 * 4)
      for socket in slow { socket.close() }
    }
    engine.shutdown()
  }

  /// curl's `Expect: 100-continue` (bodies over 1 MiB) is answered at once: 100 when the body
  /// will be read, the final 413 when it is over the limit.
  @Test func expectContinueIsAnsweredAtOnce() async throws {
    let engine = try F.engine { $0.maxBodyBytes = 1 << 20 }
    try await makeApplication(engine: engine).test(.live) { client in
      let port = try #require(client.port)
      let body = F.astronaut
      let (interim, final) = try await blocking { () -> (String, String) in
        let socket = try RawClient(port: port)
        try socket.send(
          "POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\nExpect: 100-continue\r\n\r\n")
        let interim = socket.receive(timeout: 0.5)
        try socket.send(bytes: body)
        return (interim, socket.receive(timeout: 30))
      }
      #expect(interim.hasPrefix("HTTP/1.1 100 Continue\r\n"), "\(interim)")
      #expect(final.hasPrefix("HTTP/1.1 200"), "\(final.prefix(200))")
      let refused = try await blocking { () -> String in
        let socket = try RawClient(port: port)
        try socket.send(
          "POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\nExpect: 100-continue\r\n\r\n")
        return socket.receive(timeout: 0.5)
      }
      #expect(refused.hasPrefix("HTTP/1.1 413"), "\(refused.prefix(200))")
    }
    engine.shutdown()
  }

  /// HTTP that NIO cannot parse is answered 400, 414 or 431, then the connection is closed.
  @Test(arguments: [
    ("POST /v1/detect HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n", 400),
    ("POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
    ("POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400),
    ("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\u{0}b\r\n\r\n", 400),
    ("GET /" + String(repeating: "a", count: 120_000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414),
    ("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "b", count: 90_000) + "\r\n\r\n", 431),
    ("GET /healthz HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X-Many: 1\r\n", count: 1_000) + "\r\n", 431),
  ])
  func malformedHTTPIsAnswered(request: String, status: Int) async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.live) { client in
      let port = try #require(client.port)
      let (reply, closed) = try await blocking { () -> (String, Bool) in
        let socket = try RawClient(port: port)
        try? socket.send(request)
        let reply = socket.receive(timeout: 3)
        return (reply, socket.isClosed())
      }
      #expect(reply.hasPrefix("HTTP/1.1 \(status) "), "\(reply.prefix(300))")
      #expect(reply.contains("\"error\""), "\(reply.prefix(300))")
      #expect(closed)
    }
    engine.shutdown()
  }

  /// Methods and paths answered as HTTP says: HEAD as GET without a body, a method HTTP does
  /// not define for them 501, the live stream's path without an upgrade 426.
  @Test func methodsAndTheLivePathAreAnswered() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.router) { client in
      let head = try await client.execute(uri: "/healthz", method: .head)
      #expect(head.status == .ok && head.body.readableBytes == 0, "\(head.status) \(String(buffer: head.body))")
      let headPost = try await client.execute(uri: "/v1/detect", method: .head)
      #expect(headPost.status == .methodNotAllowed && headPost.headers[.allow] == "POST", "\(headPost.status)")
      let purge = try await client.execute(uri: "/v1/detect", method: HTTPRequest.Method("PURGE")!)
      #expect(purge.status == .notImplemented, "\(purge.status)")
      let live = try await client.execute(uri: "/v1/live?task=detect", method: .get)
      #expect(live.status == .upgradeRequired && live.headers[.upgrade] == "websocket", "\(live.status)")
      #expect(String(buffer: live.body).contains("WebSocket"))
    }
    engine.shutdown()
  }

  /// Small things a caller should get right answers to: query keys percent-decoded as values
  /// are, and a multipart body of many parts without an image named in a short message.
  @Test func queriesAndMultipartErrorsAreBounded() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.router) { client in
      let decoded = try await client.execute(
        uri: "/v1/landmark?num%2Dfaces=2", method: .post, body: ByteBuffer(bytes: F.astronaut))
      #expect(decoded.status == .ok, "\(String(buffer: decoded.body))")
      let parts =
        String(repeating: "--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n\r\n", count: 20_000) + "--b--\r\n"
      let many = try await client.execute(
        uri: "/v1/detect", method: .post, headers: [.contentType: "multipart/form-data; boundary=b"],
        body: ByteBuffer(string: parts))
      let text = String(buffer: many.body)
      #expect(
        many.status == .badRequest && text.contains("19995 more") && text.utf8.count < 1000, "\(text.prefix(300))")
      // An empty file name is none: the source is `image`, as with no file name.
      let unnamed = try await client.execute(
        uri: "/v1/detect", method: .post, headers: [.contentType: "multipart/form-data; boundary=b"],
        body: F.multipart(F.astronaut, fileName: "", boundary: "b"))
      #expect((try F.object(unnamed.body)["source"] as? String) == "image")
    }
    engine.shutdown()
  }

  /// A body that ends before its Content-Length (the client's FIN) is refused 400, not taken as
  /// a short image and run.
  @Test func aBodyCutShortIsNotRun() async throws {
    let engine = try F.engine()
    try await makeApplication(engine: engine).test(.live) { client in
      let port = try #require(client.port)
      let reply = try await blocking { () -> String in
        let socket = try RawClient(port: port)
        try socket.send("POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
        try socket.send(bytes: Array(F.astronaut.prefix(500)))
        socket.finishSending()
        return socket.receive(timeout: 5)
      }
      #expect(reply.hasPrefix("HTTP/1.1 400") && reply.contains("stream ended"), "\(reply.prefix(300))")
      #expect(engine.inFlight == 0)
    }
    engine.shutdown()
  }

  /// A connection whose first request's headers do not arrive in time is closed by the header
  /// deadline, and that is no error in the server's log: Hummingbird logged one per such
  /// connection ("Error handling upgrade result"), though no WebSocket was involved.
  @Test func aHeaderDeadlineCloseLogsNoError() async throws {
    let engine = try F.engine {
      $0.threads = 1
      $0.idleTimeoutSeconds = 1
    }
    let log = LogRecorder()
    try await makeApplication(engine: engine, logger: log.logger).test(.live) { client in
      let port = try #require(client.port)
      let ending = try await blocking { () -> Int32? in
        let socket = try RawClient(port: port)
        try socket.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
        return socket.receiveAll(timeout: 5).ending
      }
      #expect(ending == 0, "the connection was not closed by the deadline: \(String(describing: ending))")
      // Hummingbird logs a connection's end after its channel has closed.
      try await Task.sleep(for: .milliseconds(300))
    }
    engine.shutdown()
    let entries = log.entries
    #expect(entries.contains { $0.message.contains("listening") }, "the log was not recorded: \(entries)")
    let errors = entries.filter { $0.level >= .error }
    #expect(errors.isEmpty, "\(errors)")
  }

  /// With `--max-connections 2` held by two idle connections (the test client's, after one
  /// request, and a raw one), a liveness probe is answered 200 at once on a connection from the
  /// reserve beyond the limit, and any other request there 503 with Retry-After; each closes
  /// its connection. Once a connection within the limit closes, requests are served again.
  @Test func aFullServerAnswersItsLivenessProbe() async throws {
    let engine = try F.engine {
      $0.threads = 1
      $0.maxConnections = 2
    }
    try await makeApplication(engine: engine).test(.live) { client in
      let port = try #require(client.port)
      #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
      let idle = try RawClient(port: port)
      try idle.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
      let first = try await blocking { idle.receive(timeout: 5) }
      #expect(first.hasPrefix("HTTP/1.1 200"), "\(first)")
      let start = ContinuousClock.now
      let (probe, probeEnding) = try await blocking { () -> (String, Int32?) in
        let socket = try RawClient(port: port)
        try socket.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        let (bytes, ending) = socket.receiveAll(timeout: 3)
        return (String(decoding: bytes, as: UTF8.self), ending)
      }
      #expect(ContinuousClock.now - start < .seconds(1))
      #expect(probe.hasPrefix("HTTP/1.1 200") && probe.hasSuffix(#"{"status": "ok"}"#), "\(probe)")
      #expect(probeEnding == 0)
      let (refused, refusedEnding) = try await blocking { () -> (String, Int32?) in
        let socket = try RawClient(port: port)
        try socket.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        let (bytes, ending) = socket.receiveAll(timeout: 3)
        return (String(decoding: bytes, as: UTF8.self), ending)
      }
      #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused)")
      #expect(refused.lowercased().contains("retry-after: 1\r\n") && refused.contains(#""code": 503"#), "\(refused)")
      #expect(refusedEnding == 0)
      // A place within the limit frees up: a new connection is served in full.
      idle.close()
      try await Task.sleep(for: .milliseconds(200))
      let metrics = try await blocking { () -> String in
        let socket = try RawClient(port: port)
        try socket.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        return socket.receive(timeout: 3)
      }
      #expect(metrics.hasPrefix("HTTP/1.1 200"), "\(metrics.prefix(300))")
    }
    engine.shutdown()
  }
}
