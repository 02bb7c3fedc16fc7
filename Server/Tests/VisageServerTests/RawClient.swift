import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A blocking TCP client on 127.0.0.1 for what HTTP clients will not do: send half a request,
/// trickle bytes, vanish mid-frame.
final class RawClient: @unchecked Sendable {
  private let fd: Int32

  init(port: Int) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
  }

  deinit { close() }

  func send(_ text: String) throws { try send(bytes: Array(text.utf8)) }

  func send(bytes: [UInt8]) throws {
    var sent = 0
    while sent < bytes.count {
      let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      guard n > 0 else { throw POSIXError(.EPIPE) }
      sent += n
    }
  }

  /// What arrives within `timeout` seconds, until the peer closes or a pause of 0.2 s after
  /// the first bytes.
  func receive(timeout: Double) -> String {
    var received: [UInt8] = []
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
      var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let wait = received.isEmpty ? Int32(max(1, end.timeIntervalSinceNow * 1000)) : 200
      guard poll(&poller, 1, wait) > 0 else { if received.isEmpty { continue } else { break } }
      var buffer = [UInt8](repeating: 0, count: 65536)
      let n = recv(fd, &buffer, buffer.count, 0)
      if n <= 0 { break }
      received += buffer[0..<n]
    }
    return String(decoding: received, as: UTF8.self)
  }

  /// Everything that arrives until the peer closes the connection or `timeout` seconds pass,
  /// and how it ended: 0 when the peer closed it (its FIN), the error (ECONNRESET for a reset),
  /// or nil when time ran out.
  func receiveAll(timeout: Double) -> (bytes: [UInt8], ending: Int32?) {
    var received: [UInt8] = []
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
      var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, Int32(max(1, end.timeIntervalSinceNow * 1000))) > 0 else { continue }
      var buffer = [UInt8](repeating: 0, count: 65536)
      let n = recv(fd, &buffer, buffer.count, 0)
      if n < 0 { return (received, errno) }
      if n == 0 { return (received, 0) }
      received += buffer[0..<n]
    }
    return (received, nil)
  }

  /// Whether the peer has closed the connection.
  func isClosed() -> Bool {
    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&poller, 1, 0) > 0 else { return false }
    var byte: UInt8 = 0
    return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0
  }

  /// Half-closes the connection: the peer reads the end of the stream, and can still answer.
  func finishSending() { shutdown(fd, Int32(SHUT_WR)) }

  private var closed = false
  func close() {
    guard !closed else { return }
    closed = true
    Glibc.close(fd)
  }

  /// One POST on a connection of its own; the response's status, or 0 when none came.
  static func post(port: Int, path: String, body: [UInt8]) throws -> Int {
    let client = try RawClient(port: port)
    try client.send(
      "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n")
    try client.send(bytes: body)
    let reply = client.receive(timeout: 60)
    guard reply.hasPrefix("HTTP/1.1 "), let status = Int(reply.dropFirst(9).prefix(3)) else { return 0 }
    return status
  }
}

/// Client-side WebSocket frames, masked as RFC 6455 requires (unless told otherwise), and the
/// server's close frame read back.
enum WebSocketFrames {
  static func maskedBinary(_ payload: [UInt8]) -> [UInt8] { frame(0x82, payload) }

  /// A frame whose first byte (FIN, RSV and opcode) is `first`.
  static func frame(_ first: UInt8, _ payload: [UInt8], masked: Bool = true) -> [UInt8] {
    let maskBit: UInt8 = masked ? 0x80 : 0
    var frame: [UInt8] = [first]
    if payload.count < 126 {
      frame.append(maskBit | UInt8(payload.count))
    } else if payload.count < 65536 {
      frame += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    } else {
      frame.append(maskBit | 127)
      frame += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
    }
    guard masked else { return frame + payload }
    let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
    frame += mask
    frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    return frame
  }

  /// The status code of the first close frame among the server's (unmasked) frames in
  /// `bytes`; nil when there is none.
  static func closeCode(in bytes: [UInt8]) -> Int? {
    var at = 0
    while at + 2 <= bytes.count {
      var length = Int(bytes[at + 1] & 0x7F)
      var header = 2
      if length == 126, at + 4 <= bytes.count {
        (length, header) = (Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]), 4)
      } else if length == 127, at + 10 <= bytes.count {
        (length, header) = (bytes[(at + 2)..<(at + 10)].reduce(0) { $0 << 8 | Int($1) }, 10)
      }
      if bytes[at] & 0x0F == 0x8 {
        guard length >= 2, at + header + 2 <= bytes.count else { return nil }
        return Int(bytes[at + header]) << 8 | Int(bytes[at + header + 1])
      }
      at += header + length
    }
    return nil
  }
}

/// Runs blocking socket work on a thread of its own, so that it never holds one of the few
/// threads Swift concurrency (and so the server under test) runs on.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try body() }) }.start()
  }
}

/// Runs `body`, failing the test instead of hanging when it takes longer than `seconds`.
func within<T: Sendable>(_ seconds: Int, _ what: String, _ body: @escaping @Sendable () async throws -> T) async throws
  -> T?
{
  try await withThrowingTaskGroup(of: T?.self) { group in
    group.addTask { try await body() }
    group.addTask {
      try await Task.sleep(for: .seconds(seconds))
      return nil
    }
    defer { group.cancelAll() }
    guard let first = try await group.next(), let value = first else {
      Issue.record("\(what) took over \(seconds) s")
      return nil
    }
    return value
  }
}
