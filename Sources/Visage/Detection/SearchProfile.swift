import Dispatch

/// Where the last wider search's time went (docs/every-face.md's breakdown): each pass by kind and turn,
/// the suppression, the looks, and over all of them the warps, the models and the decoding of
/// their outputs; with how many candidates reached the looks. Kept by every search (a clock
/// read or two per inference, against milliseconds of model); `visage detect --profile-search`
/// prints it and `Benchmarks/range_cost.py --breakdown` sums it.
package struct SearchProfile: Sendable, Equatable {
  /// A stretch of the search: its wall time and the model runs it made.
  package struct Phase: Sendable, Equatable {
    package var name: String
    package var seconds: Double
    package var inferences: Int
  }

  /// The passes (for instance "full tiles 90°"), then "suppression" and "looks", in order.
  package var phases: [Phase] = []
  /// Candidates left after the passes' suppression: each gets at least one look.
  package var candidates = 0
  /// Faces the looks confirmed, before the last suppression.
  package var confirmed = 0
  /// Over every model run of the search, on every thread: the time in each of its stages.
  package var inference = InferenceTimes()
}

/// How far a wider search has got, as it reports at the start of each phase and after every
/// `FaceSearch.progressChunk` tiles or candidates within one: for a progress line on a
/// terminal (`visage detect`), since one search of a large photo can take seconds.
package struct SearchProgress: Sendable, Equatable {
  /// The phase under way, as `SearchProfile.Phase.name` names it.
  package var phase: String
  /// Model runs made so far.
  package var runs: Int
  /// The runs the passes plan, plus two for each candidate once the looks are known (a
  /// look's fewest): an estimate of the whole, at most the search's own count.
  package var plannedRuns: Int
  /// Seconds since the search started.
  package var seconds: Double
}

/// The time a detector's runs spent in their three stages, summed.
package struct InferenceTimes: Sendable, Equatable {
  package var runs = 0
  /// Warping the region into the model's input (OpenCV's fixed-point warp).
  package var warpSeconds = 0.0
  /// The model itself.
  package var modelSeconds = 0.0
  /// Turning the outputs into detections (anchors, scores, boxes).
  package var decodeSeconds = 0.0

  static func + (a: Self, b: Self) -> Self {
    Self(
      runs: a.runs + b.runs, warpSeconds: a.warpSeconds + b.warpSeconds, modelSeconds: a.modelSeconds + b.modelSeconds,
      decodeSeconds: a.decodeSeconds + b.decodeSeconds)
  }

  static func - (a: Self, b: Self) -> Self {
    Self(
      runs: a.runs - b.runs, warpSeconds: a.warpSeconds - b.warpSeconds, modelSeconds: a.modelSeconds - b.modelSeconds,
      decodeSeconds: a.decodeSeconds - b.decodeSeconds)
  }
}

/// Seconds on a monotonic clock, for the profile.
func monotonicSeconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
