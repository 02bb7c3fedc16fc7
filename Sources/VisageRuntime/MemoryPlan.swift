/// Where each activation tensor lives in one shared arena, settled once per graph.
///
/// Greedy first-fit by definition order (TFLite's ArenaPlanner idea): a tensor's slot can be
/// reused once the last node reading it has run. A node's output never shares memory with
/// its inputs, because their lifetimes overlap at that node.
struct MemoryPlan {
  /// Arena offset, in floats, of each planned tensor.
  var offsets: [Int: Int] = [:]
  /// Arena size in floats.
  var size = 0

  /// Slots are rounded to 16 floats so that every tensor starts on a 64-byte boundary.
  static let alignment = 16

  /// Plans tensors given their size, the step that defines them and the last step that
  /// reads them; `reuse: false` gives every tensor its own slot.
  init(tensors: [(id: Int, count: Int, first: Int, last: Int)], reuse: Bool) {
    var live: [(offset: Int, size: Int, last: Int)] = []
    for t in tensors.sorted(by: { ($0.first, $0.id) < ($1.first, $1.id) }) {
      let need = (max(t.count, 1) + Self.alignment - 1) / Self.alignment * Self.alignment
      if reuse { live.removeAll { $0.last < t.first } }
      live.sort { $0.offset < $1.offset }
      var offset = 0
      for block in live {
        if block.offset - offset >= need { break }
        offset = max(offset, block.offset + block.size)
      }
      live.append((offset, need, t.last))
      offsets[t.id] = offset
      size = max(size, offset + need)
    }
  }
}
