import Foundation
import VisageTFLite

/// The comparison as `visage compare` prints it: one JSON object, or a table for people.
/// docs/validation.md shows both.
extension DumpComparison {
  var json: JSON {
    func number(_ value: Double) -> JSON { .double(value) }
    // The signal-to-noise ratio is infinite for equal tensors and minus infinity for noise
    // against an all-zero reference: JSON has no number for either, so they are strings.
    func decibels(_ value: Double) -> JSON { value.isFinite ? .double(value) : .string(value > 0 ? "inf" : "-inf") }
    func describe(_ r: Result) -> [(String, JSON)] {
      var fields: [(String, JSON)] = [
        ("index", .int(r.index)), ("name", .string(r.name)), ("shape", .array(r.shape.map(JSON.int))),
        ("operator", r.producer.map { .object([("index", .int($0.index)), ("type", .string($0.type))]) } ?? .null),
        ("status", .string(r.status.rawValue)),
      ]
      if let problem = r.problem { fields.append(("problem", .string(problem))) }
      if let other = r.otherName { fields.append(("nameInB", .string(other))) }
      if r.problem == nil {
        let s = r.stats
        fields += [
          ("maxAbsError", number(s.maxAbsError)), ("maxRelError", number(s.maxRelError)), ("snrDb", decibels(s.snrDb)),
          ("mismatches", .int(s.mismatches)),
          (
            "nonFinite",
            .object([
              ("a", .int(s.nonFiniteA)), ("b", .int(s.nonFiniteB)), ("mismatches", .int(s.nonFiniteMismatches)),
            ])
          ),
        ]
      }
      return fields
    }
    var divergence = JSON.null
    if let first = firstDivergence {
      var fields = describe(first)
      if let producer = first.producer {
        let inputs = self.inputs(of: producer).map { item in
          item.result.map { JSON.object(describe($0)) }
            ?? .object([("index", .int(item.index)), ("status", .string("notInBoth"))])
        }
        fields.append(("inputs", .array(inputs)))
      }
      divergence = .object(fields)
    }
    return .object(
      [
        (
          "a",
          .object([
            ("directory", BytePath(directories.a).json), ("engine", .string(a.engine)), ("stopped", a.stoppedJSON),
          ])
        ),
        (
          "b",
          .object([
            ("directory", BytePath(directories.b).json), ("engine", .string(b.engine)), ("stopped", b.stoppedJSON),
          ])
        ),
        ("atol", .double(tolerance.atol)), ("rtol", .double(tolerance.rtol)),
        ("compared", .int(results.count)), ("failed", .int(failed)),
        ("onlyInA", .array(onlyInA.map(JSON.int))), ("onlyInB", .array(onlyInB.map(JSON.int))),
        ("tensors", .array(results.map { .object(describe($0)) })), ("firstDivergence", divergence),
      ]
        + (fusedOutputs.isEmpty
          ? []
          : [("fusedOutputs", .array(fusedOutputs.map { .object(describe($0)) })), ("fusedFailed", .int(fusedFailed))]))
  }

  var text: String {
    func short(_ value: Double) -> String {
      value == 0 ? "0" : value.isFinite ? String(format: "%.3g", value) : value > 0 ? "inf" : "-inf"
    }
    func errors(_ r: Result) -> String {
      if let problem = r.problem { return "\(r.status.rawValue): \(problem)" }
      var line = "max abs \(short(r.stats.maxAbsError)), max rel \(short(r.stats.maxRelError)), "
      line += "SNR \(short(r.stats.snrDb)) dB"
      if r.stats.mismatches > 0 { line += ", \(r.stats.mismatches) values out of tolerance" }
      if r.stats.nonFiniteA + r.stats.nonFiniteB > 0 {
        line +=
          ", NaN/inf: \(r.stats.nonFiniteA) in A, \(r.stats.nonFiniteB) in B, \(r.stats.nonFiniteMismatches) not matched"
      }
      return line
    }
    func label(_ r: Result) -> String { "tensor \(r.index) '\(r.name)'" }
    func pad(_ s: String, _ width: Int) -> String {
      s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }
    var lines = [
      "A: \(BytePath(directories.a).description) (\(a.engine.isEmpty ? "?" : a.engine))",
      "B: \(BytePath(directories.b).description) (\(b.engine.isEmpty ? "?" : b.engine)), the reference",
      "tolerance: |a - b| <= \(tolerance.atol) + \(tolerance.rtol)·|b|",
    ]
    for (side, manifest) in [("A", a), ("B", b)] {
      if let s = manifest.stopped { lines.append("\(side) stopped at operator \(s.index) \(s.type): \(s.reason)") }
    }
    lines.append(
      pad("index", 7) + pad("operator", 26) + pad("status", 16) + pad("max abs", 10) + pad("SNR dB", 9) + "name")
    for r in results {
      let op = r.producer.map { "\($0.index) \($0.type)" } ?? "-"
      let error = r.problem == nil ? short(r.stats.maxAbsError) : "-"
      let snr = r.problem == nil ? short(r.stats.snrDb) : "-"
      lines.append(
        pad(String(r.index), 7) + pad(op, 26) + pad(r.status.rawValue, 16) + pad(error, 10) + pad(snr, 9) + r.name)
    }
    lines.append(
      "\(results.count) tensors in both: \(results.count - failed) within tolerance, \(failed) not; "
        + "\(onlyInA.count) only in A, \(onlyInB.count) only in B")
    if results.isEmpty { lines.append("nothing to compare: no tensor is in both dumps (another model?)") }
    if !fusedOutputs.isEmpty {
      let bad = fusedOutputs.filter { $0.status != .ok }
      lines.append(
        "the fused graph's \(fusedOutputs.count) output\(fusedOutputs.count == 1 ? "" : "s") (what inference runs) "
          + "against B: "
          + (bad.isEmpty ? "within tolerance" : "\(bad.count) not within tolerance"))
      for r in bad { lines.append("  fused output \(label(r)): \(errors(r))") }
    }
    guard let first = firstDivergence else {
      lines.append("first divergence: none")
      return lines.joined(separator: "\n")
    }
    var line = "first divergence: \(label(first))"
    if let p = first.producer { line += ", written by operator \(p.index) \(p.type)" }
    lines.append(line + ": " + errors(first))
    if let p = first.producer {
      for item in inputs(of: p) {
        lines.append(
          "  input " + (item.result.map { "\(label($0)): \(errors($0))" } ?? "tensor \(item.index): not in both dumps"))
      }
    }
    return lines.joined(separator: "\n")
  }
}
