import PacketKit

/// The units a spec may give a field. A dissection node holds its unit as
/// a `FieldUnit`, a static string (no reference counting per node), so a
/// spec's unit must be one of these literals; the list covers the SI
/// units and their common prefixes that devices report.
enum SpecUnits {
  static let all: [FieldUnit] = [
    "bytes", "bits", "B", "kB", "s", "ms", "µs", "us", "ns", "min", "h", "Hz", "kHz", "MHz", "%", "‰", "°",
    "rad", "°C", "°F", "K", "V", "mV", "µV", "A", "mA", "µA", "W", "mW", "kW", "Wh", "mWh", "mAh", "Ω", "kΩ",
    "m", "mm", "cm", "km", "µm", "m/s", "km/h", "m/s²", "g", "mg", "kg", "N", "Nm", "Pa", "hPa", "kPa",
    "bar", "mbar", "psi", "dB", "dBm", "lx", "ppm", "rpm", "°/s", "T", "µT", "G", "L", "mL", "L/min", "J",
    "cd", "mol", "steps", "counts", "ticks", "packets", "frames",
  ]

  static let spellings: [String] = all.map(\.description)

  static func unit(_ spelling: String) -> FieldUnit? {
    all.first { $0.description == spelling }
  }
}
