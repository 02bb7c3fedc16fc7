import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import VisageServer

/// Frames RFC 6455 forbids on `GET /v1/live`, sent as raw bytes after a proper upgrade: each is
/// answered with a close frame carrying the status the RFC names, then the connection is
/// closed (a FIN, not a reset).
@Suite(.serialized) struct WebSocketProtocolTests {
  typealias F = ServerFixtures

  /// §5.1: a server must close the connection on a frame that is not masked (1002).
  @Test func anUnmaskedFrameIsAProtocolError() async throws {
    let (code, ending) = try await closeAfter(WebSocketFrames.frame(0x82, F.panFrames[0], masked: false))
    #expect(code == 1002)
    #expect(ending == 0, "ended by \(String(describing: ending))")
  }

  /// A frame over `--max-body-bytes` (the frame limit) is refused with 1009, message too big,
  /// even while the client is still sending it.
  @Test func aFrameOverTheLimitIsTooBig() async throws {
    let frame = WebSocketFrames.maskedBinary([UInt8](repeating: 7, count: 1 << 20))
    let (code, ending) = try await closeAfter(frame) { $0.maxBodyBytes = 64 << 10 }
    #expect(code == 1009)
    #expect(ending == 0, "ended by \(String(describing: ending))")
  }

  /// A continuation frame with no frame before it to continue is a protocol error (1002).
  @Test func aContinuationWithoutAStartIsAProtocolError() async throws {
    let (code, ending) = try await closeAfter(WebSocketFrames.frame(0x80, Array("tail".utf8)))
    #expect(code == 1002)
    #expect(ending == 0, "ended by \(String(describing: ending))")
  }

  /// A well-formed stream still closes with 1000 when the client closes it.
  @Test func aClientsCloseIsAnsweredNormally() async throws {
    let (code, ending) = try await closeAfter(WebSocketFrames.frame(0x88, [0x03, 0xE8]))
    #expect(code == 1000)
    #expect(ending == 0, "ended by \(String(describing: ending))")
  }

  /// Opens a live stream on a raw socket and sends `frame`: the status code of the close frame
  /// the server answers with (nil when none came) and how the connection ended
  /// (`RawClient.receiveAll`).
  private func closeAfter(_ frame: [UInt8], configure: (inout ServerConfiguration) -> Void = { _ in }) async throws
    -> (code: Int?, ending: Int32?)
  {
    // One copy: the stream is refused before any frame is run.
    let engine = try F.engine {
      $0.threads = 1
      configure(&$0)
    }
    defer { engine.shutdown() }
    return try await makeApplication(engine: engine).test(.live) { client in
      let port = try #require(client.port)
      return try await blocking { () -> (Int?, Int32?) in
        let socket = try RawClient(port: port)
        try socket.send(
          "GET /v1/live?task=detect HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        let head = socket.receive(timeout: 5)
        #expect(head.hasPrefix("HTTP/1.1 101"), "\(head)")
        // The server may close before the whole frame is sent; what it answered is read all
        // the same.
        try? socket.send(bytes: frame)
        let (bytes, ending) = socket.receiveAll(timeout: 10)
        return (WebSocketFrames.closeCode(in: bytes), ending)
      }
    }
  }
}
