/// A cumulative quantity summed per day: steps, distance, energy, flights, exercise minutes.
package enum CumulativeKind: Int, CaseIterable, Sendable {
    case steps, distance, activeEnergy, basalEnergy, flights, exerciseTime
}
